// fusebox_fuzz: the differential fusion fuzzer and the parser mutation fuzzer
// (docs/fuzzing.md).
#include "differential_check.h"
#include "fuzz_commands.h"
#include "generator.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

namespace {

using namespace fusebox::fuzz;

void addLimits(CLI::App* app, RunLimits& l, const char* what) {
  app->add_option("--seed", l.seed, "Run seed (case i has seed (seed << 32) + i)")
      ->capture_default_str();
  app->add_option("--count,--cases,--mutations", l.count,
                  fmt::format("Number of {} (0: until --minutes)", what));
  app->add_option("--minutes", l.minutes, "Stop after this many minutes");
  app->add_option("--out", l.out, "Folder for failing cases (minimized) and their .txt notes");
  app->add_option(
      "--ignore", l.ignore,
      "Failures whose signature or message contains this text are known bugs: counted apart, "
      "not failing the run (repeatable)");
  app->add_option("--minimize-minutes", l.minimize_minutes,
                  "Time for minimizing failures at the end")
      ->capture_default_str();
  app->add_flag("!--no-minimize", l.minimize, "Write failing cases as found");
  app->add_option("--timeout", l.timeout, "Seconds per case before it is a hang")
      ->capture_default_str();
  app->add_flag("--quiet,-q", l.quiet, "Only the summary");
}

std::vector<std::string> splitCommas(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  for (const auto& s : v) {
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');)
      if (!part.empty()) out.push_back(part);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fusebox_fuzz: differential fusion fuzzer and parser mutation fuzzer"};
  app.require_subcommand(1);

  FusionRunOptions fusions;
  std::vector<std::string> exclude;
  std::string kernel_cache;
  fusions.limits.seed = 1;
#ifdef FUSEBOX_EXE
  fusions.fusebox_exe = FUSEBOX_EXE;
#endif
  CLI::App* f = app.add_subcommand("fusions", "Generated fusions: runtime vs reference evaluator");
  addLimits(f, fusions.limits, "cases");
  f->add_option("--backend", fusions.backend, "eval, host or mixed")
      ->check(CLI::IsMember({"eval", "host", "mixed"}))
      ->capture_default_str();
  f->add_option("--host-every", fusions.host_every, "mixed: every Nth case on the host backend")
      ->capture_default_str();
  f->add_option("--cli-every", fusions.cli_every,
                "Also run every Nth host case through `fusebox run --backend host --validate`");
  f->add_option("--fusebox", fusions.fusebox_exe, "The fusebox program for --cli-every");
  f->add_option("--exclude", exclude, "Features to leave out (comma-separated; see `features`)");
  f->add_option("--max-statements", fusions.generator.max_statements, "Ops per fusion at most")
      ->capture_default_str();
  f->add_option("--kernel-cache", kernel_cache, "Kernel cache folder (FUSEBOX_KERNEL_CACHE_DIR)");
  f->add_option("--large-probability", fusions.generator.large_probability,
                "Share of cases with up to 64K elements (at least 0.15 on the host backend)")
      ->capture_default_str();
  f->add_option("--deep-probability", fusions.generator.deep_probability,
                "Share of cases ending in a chain of 12,000+ ops")
      ->capture_default_str();
  f->add_flag("!--one-run", fusions.second_run, "Skip the second call with other input values");
  f->add_flag("!--default-passes", fusions.vary_passes,
              "Always the default pass pipeline (else 1 case in 3 leaves some passes out)");
  f->add_flag("--report-invalid", fusions.report_invalid,
              "Report cases that both sides refuse (generator development)");
  bool no_pch = false;
  f->add_flag("--no-pch", no_pch,
              "Compile host kernels as fusebox does by default (no precompiled runtime header)");

  ParserRunOptions parsers;
  CLI::App* p = app.add_subcommand("parsers", "Mutated scripts and configs through the parsers");
  addLimits(p, parsers.limits, "mutations");
  p->add_option("--corpus", parsers.corpus, "Seed files or folders (.py, .toml)");
  p->add_flag("--message-checks", parsers.message_checks,
              "Also require errors to name file:line:col, without raw control bytes, under 4 KB");
  p->add_option("--memory-mb", parsers.memory_mb, "Address-space limit of the worker")
      ->capture_default_str();
  p->add_option("--max-depth", parsers.max_depth, "Deepest bracket or dotted-key nesting made")
      ->capture_default_str();

  std::string file, out, backend;  // "": the file's "# fuzz-backend:" line, else host
  bool one_run = false;
  CLI::App* c = app.add_subcommand("check", "Check one script (in this process)");
  c->add_option("file", file)->required();
  c->add_option("--backend", backend,
                "host or eval (default: the file's fuzz-backend line, else host)")
      ->check(CLI::IsMember({"eval", "host"}))
      ->capture_default_str();
  c->add_flag("--one-run", one_run, "Skip the second call with other input values");

  double timeout = 120;
  CLI::App* m = app.add_subcommand("minimize", "Minimize a failing script");
  m->add_option("file", file)->required();
  m->add_option("--out,-o", out)->required();
  m->add_option("--backend", backend,
                "host or eval (default: the file's fuzz-backend line, else host)")
      ->check(CLI::IsMember({"eval", "host"}))
      ->capture_default_str();
  m->add_option("--timeout", timeout)->capture_default_str();

  uint64_t case_seed = 0;
  CLI::App* pr = app.add_subcommand("print", "Print the script of a case seed");
  pr->add_option("case_seed", case_seed)->required();
  pr->add_option("--exclude", exclude, "Features left out when the case was made");
  pr->add_option("--max-statements", fusions.generator.max_statements)->capture_default_str();
  pr->add_option("--large-probability", fusions.generator.large_probability)->capture_default_str();
  pr->add_option("--deep-probability", fusions.generator.deep_probability)->capture_default_str();

  int64_t rejection_cases = 1000;
  CLI::App* rej = app.add_subcommand(
      "rejections", "Why the generator's candidate statements were refused, most common first");
  rej->add_option("--cases", rejection_cases)->capture_default_str();
  rej->add_option("--exclude", exclude, "Features to leave out");

  CLI::App* feat = app.add_subcommand("features", "List the generator's features (for --exclude)");

  CLI11_PARSE(app, argc, argv);
  for (const auto& e : splitCommas(exclude)) fusions.generator.excluded.insert(e);
  for (const auto& e : fusions.generator.excluded) {
    bool known = false;
    for (const auto& fi : generatorFeatures()) known = known || e == fi.name;
    if (!known) {
      std::cerr << "--exclude " << e << ": unknown feature (see `fusebox_fuzz features`)\n";
      return 2;
    }
  }
  if (!kernel_cache.empty()) setenv("FUSEBOX_KERNEL_CACHE_DIR", kernel_cache.c_str(), 1);

  if (f->parsed()) {
#if defined(FUSEBOX_SOURCE_DIR) && defined(FUSEBOX_REAL_CXX)
    // Host kernels compile about 3x faster with the runtime header precompiled
    // (tests/fuzz/host_cxx_pch.sh); same code, same cache keys.
    if (!no_pch && getenv("FUSEBOX_HOST_CXX") == nullptr) {
      setenv("FUSEBOX_HOST_CXX", FUSEBOX_SOURCE_DIR "/tests/fuzz/host_cxx_pch.sh", 1);
      setenv("FUSEBOX_FUZZ_REAL_CXX", FUSEBOX_REAL_CXX, 0);
    }
#endif
    return runFusions(fusions);
  }
  if (p->parsed()) {
#ifdef FUSEBOX_SOURCE_DIR
    if (parsers.corpus.empty())
      parsers.corpus = {FUSEBOX_SOURCE_DIR "/tests/data/corpus", FUSEBOX_SOURCE_DIR "/examples",
                        FUSEBOX_SOURCE_DIR "/config", FUSEBOX_SOURCE_DIR "/tests/fuzz/corpus"};
#endif
    return runParsers(parsers);
  }
  if (c->parsed()) return checkScriptFile(file, backend, !one_run);
  if (m->parsed()) return minimizeScriptFile(file, out, backend, timeout);
  if (pr->parsed()) {
    GeneratedCase g = generateCase(case_seed, fusions.generator);
    std::cout << renderScript(g.fuzz_case);
    if (!g.generator_failure.empty())
      std::cerr << "generator failure: " << g.generator_failure << "\n";
    return 0;
  }
  if (rej->parsed()) {
    std::map<std::string, std::pair<int64_t, std::string>> tally;
    int64_t statements = 0;
    for (int64_t i = 0; i < rejection_cases; ++i) {
      GeneratedCase g = generateCase(caseSeed(fusions.limits.seed, i), fusions.generator);
      statements += static_cast<int64_t>(g.fuzz_case.body.size());
      for (const auto& r : g.rejections) {
        auto& t = tally[blurMessage(r, 160)];
        if (t.first++ == 0) t.second = r;
      }
    }
    std::vector<std::pair<int64_t, std::string>> sorted;
    for (const auto& [k, v] : tally) sorted.push_back({v.first, k});
    std::sort(sorted.rbegin(), sorted.rend());
    std::cout << fmt::format("{} cases, {} statements kept\n", rejection_cases, statements);
    for (const auto& [n, k] : sorted)
      std::cout << fmt::format("{:6} {}\n       e.g. {}\n", n, k, tally[k].second.substr(0, 300));
    return 0;
  }
  if (feat->parsed()) {
    for (const auto& fi : generatorFeatures())
      std::cout << fmt::format("{:22} {}\n", fi.name, fi.what);
    return 0;
  }
  return 2;
}
