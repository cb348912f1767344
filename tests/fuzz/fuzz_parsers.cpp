// `fusebox_fuzz parsers`: seeded mutations of the corpus scripts and config
// files through the Python and TOML readers, in a supervised worker with an
// address-space limit.
#include "differential_check.h"
#include "findings.h"
#include "fuzz_commands.h"
#include "minimize.h"
#include "parser_fuzz.h"
#include "supervisor.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

namespace fusebox::fuzz {

namespace {

// The input as the worker sees it: a first line naming the target, then the text.
std::string tagged(ParserTarget t, const std::string& text) {
  return (t == ParserTarget::Python ? "python\n" : "toml\n") + text;
}

ParserTarget targetOf(const std::string& input, std::string* text) {
  size_t nl = input.find('\n');
  *text = nl == std::string::npos ? "" : input.substr(nl + 1);
  return input.compare(0, 5, "toml\n") == 0 ? ParserTarget::Toml : ParserTarget::Python;
}

// A crash or hang report (from the supervisor) with the parser in its
// signature, as the worker's own reports have it.
FailureReport withTarget(ParserTarget t, FailureReport r) {
  if (r.category == "crash" || r.category == "hang")
    r.signature = std::string(t == ParserTarget::Python ? "python " : "toml ") + r.signature;
  return r;
}

}  // namespace

int runParsers(const ParserRunOptions& o) {
  const RunLimits& L = o.limits;
  ParserCorpus corpus = loadParserCorpus(o.corpus);
  if (corpus.python.empty() && corpus.toml.empty()) {
    std::cerr << "no .py or .toml files in the corpus\n";
    return 2;
  }
  ParserCheckOptions popts;
  popts.message_checks = o.message_checks;
  auto report = [&](ParserTarget t, const std::string& text) -> std::optional<FailureReport> {
    std::optional<std::string> problem = checkParserInput(t, text, popts);
    if (!problem) return std::nullopt;
    FailureReport f;
    size_t colon = problem->find(':');
    f.category = problem->substr(0, colon);
    f.message = *problem;
    f.signature = std::string(t == ParserTarget::Python ? "python " : "toml ") + f.category + ": " +
                  blurMessage(problem->substr(colon + 1));
    f.input = tagged(t, text);
    return f;
  };
  WorkerCode code;
  code.run_index = [&](int64_t index, WorkerContext& ctx) -> std::optional<FailureReport> {
    Mutation m = makeMutation(corpus, L.seed, index, o.max_depth);
    ctx.setCurrentInput(tagged(m.target, m.text));
    ctx.count(m.target == ParserTarget::Python ? "python" : "toml");
    auto f = report(m.target, m.text);
    if (f) ctx.count("fail");
    return f;
  };
  code.check_input = [&](const std::string& input, WorkerContext&) {
    std::string text;
    ParserTarget t = targetOf(input, &text);
    return report(t, text);
  };
  SupervisorOptions sopts;
  sopts.case_timeout_seconds = std::min(L.timeout, 20.0);
  sopts.address_space_limit_mb = o.memory_mb;
  Supervisor sup(code, sopts);
  Findings findings(L.out, L.ignore);
  std::vector<std::string> fresh;
  auto start = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (L.minutes > 0)
    deadline = start + std::chrono::milliseconds(static_cast<int64_t>(L.minutes * 60000));
  int64_t end = L.count > 0 ? L.count : INT64_MAX / 2;
  auto last_print = start;
  int64_t done = sup.runRange(
      0, end, deadline,
      [&](const FailureReport& r) {
        FailureReport full = r;
        if (full.category == "crash" || full.category == "hang") {
          // The worker died: the input from the mutation's number.
          Mutation m = makeMutation(corpus, L.seed, r.index, o.max_depth);
          full = withTarget(m.target, r);
          full.input = tagged(m.target, m.text);
        }
        if (findings.add(full) && !L.quiet)
          std::cerr << fmt::format("new failure at mutation {}: {}\n", r.index,
                                   printable(full.signature, 200));
        if (findings.all().at(full.signature).count == 1) fresh.push_back(full.signature);
      },
      [&](int64_t n) {
        auto now = std::chrono::steady_clock::now();
        if (L.quiet || now - last_print < std::chrono::seconds(30)) return;
        last_print = now;
        double s = std::chrono::duration<double>(now - start).count();
        std::cerr << fmt::format("{} mutations in {:.0f} s ({:.0f}/s), {} failing\n", n, s, n / s,
                                 findings.failures());
      });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  auto min_deadline = std::chrono::steady_clock::now() +
                      std::chrono::milliseconds(static_cast<int64_t>(L.minimize_minutes * 60000));
  for (const auto& sig : fresh) {
    const Finding& f = findings.all().at(sig);
    std::string text;
    ParserTarget t = targetOf(f.first.input, &text);
    std::string minimized = text;
    if (L.minimize && !f.ignored && std::chrono::steady_clock::now() < min_deadline) {
      minimized = minimizeText(text, [&](const std::string& candidate) {
        if (std::chrono::steady_clock::now() > min_deadline) return false;
        auto r = sup.check(tagged(t, candidate));
        return r && withTarget(t, *r).signature == f.first.signature;
      });
    }
    findings.write(sig, minimized, t == ParserTarget::Python ? ".py" : ".toml",
                   fmt::format("mutation {} of seed {}", f.first.index, L.seed));
  }

  auto counters = sup.counters();
  auto get = [&](const char* k) { return counters.count(k) ? counters.at(k) : int64_t{0}; };
  std::cout << fmt::format(
      "parsers: {} mutations in {:.1f} s ({:.0f}/s): {} python, {} toml; {} failing; worker "
      "restarts {}\n",
      done, seconds, done / std::max(seconds, 1e-9), get("python"), get("toml"),
      findings.failures() + findings.ignoredCases(), sup.workerRestarts());
  findings.printSummary(std::cout);
  return findings.failures() == 0 ? 0 : 1;
}

}  // namespace fusebox::fuzz
