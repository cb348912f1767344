// `fusebox_fuzz fusions`: generated fusions through the runtime against the
// reference evaluator, in a supervised worker; plus `check` and `minimize`
// of one script.
#include "differential_check.h"
#include "findings.h"
#include "fuzz_commands.h"
#include "minimize.h"
#include "supervisor.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace fusebox::fuzz {

uint64_t caseSeed(uint64_t run_seed, int64_t index) {
  return (run_seed << 32) + static_cast<uint64_t>(index);
}

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

BackendChoice parseBackend(const std::string& name) {
  return name == "eval" ? BackendChoice::Eval : BackendChoice::Host;
}

// Two reports are the same failure when a mismatch stays a mismatch of the
// same kind, or an error keeps its (blurred) message.
bool sameFailure(const FailureReport& a, const FailureReport& b) {
  // A refusal met while generating reproduces as any refusal (the checker's
  // parse error, or the evaluator refusing) with the same message.
  if (a.category == "frontend-rejects") {
    std::string core = blurMessage(a.message, 400);
    if (size_t at = core.find("case.py:#:#: "); at == 0) core = core.substr(13);
    return blurMessage(b.message, 800).find(core.substr(0, 80)) != std::string::npos;
  }
  if (a.category != b.category) return false;
  static const std::vector<std::string> by_category = {
      "mismatch", "exact-mismatch", "input-modified", "shape", "layout", "crash", "hang"};
  for (const auto& c : by_category)
    if (a.category == c) return true;
  return a.signature == b.signature;
}

// A failure as the supervisor reports it; with `invalid_too`, cases both sides
// refuse come back too (category "invalid-..."), for minimizing refusals.
std::optional<FailureReport> reportOf(const CheckResult& r, const std::string& script,
                                      bool invalid_too = false) {
  if (r.verdict != Verdict::Fail && !(invalid_too && r.verdict == Verdict::Invalid))
    return std::nullopt;
  FailureReport f;
  f.category = r.verdict == Verdict::Invalid ? "invalid-" + r.category : r.category;
  f.signature = r.signature();
  f.message = r.message;
  f.input = script;
  return f;
}

// `fusebox run FILE --backend host --validate`: the program itself must exit
// 0 on a valid fusion the checker passed.
std::optional<FailureReport> runCli(const std::string& exe, const std::string& script,
                                    double timeout) {
  char path[] = "/tmp/fusebox-fuzz-XXXXXX.py";
  int fd = mkstemps(path, 3);
  if (fd < 0) return std::nullopt;
  if (::write(fd, script.data(), script.size()) != static_cast<ssize_t>(script.size())) {
    ::close(fd);
    return std::nullopt;
  }
  ::close(fd);
  std::string err = std::string(path) + ".err";
  std::string cmd = fmt::format(
      "timeout -s KILL {} '{}' run '{}' --backend host --validate --no-ir "
      ">/dev/null 2>'{}'",
      static_cast<int>(timeout), exe, path, err);
  int status = std::system(cmd.c_str());
  std::string stderr_text = readFile(err);
  std::remove(path);
  std::remove(err.c_str());
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code == 0) return std::nullopt;
  FailureReport f;
  f.category = code == 137 ? "cli-hang"
               : code == 1 ? "cli-exit-1"
               : code == 2 ? "cli-internal-error"
                           : "cli-crash";
  f.message = fmt::format("`fusebox run --backend host --validate` exit {}: {}", code,
                          stderr_text.substr(0, 500));
  f.signature = f.category + ": " + blurMessage(stderr_text);
  f.input = script;
  return f;
}

}  // namespace

int runFusions(const FusionRunOptions& o) {
  const RunLimits& L = o.limits;
  std::unique_ptr<DifferentialChecker> checker;
  CheckOptions copts;
  copts.second_run = o.second_run;
  auto backendOf = [&](int64_t index) {
    if (o.backend == "eval") return BackendChoice::Eval;
    if (o.backend == "host") return BackendChoice::Host;
    return o.host_every > 0 && index % o.host_every == 0 ? BackendChoice::Host
                                                         : BackendChoice::Eval;
  };
  WorkerCode code;
  code.setup = [&]() { checker = std::make_unique<DifferentialChecker>(copts); };
  code.run_index = [&](int64_t index, WorkerContext& ctx) -> std::optional<FailureReport> {
    BackendChoice backend = backendOf(index);
    // Large cases matter to kernels: more of them on the host backend.
    GeneratorOptions gopts = o.generator;
    if (backend == BackendChoice::Host) {
      gopts.large_probability = std::max(gopts.large_probability, 0.15);
      // A compile costs the same for a long kernel as for a short one.
      gopts.max_statements = std::max<int64_t>(gopts.max_statements, 24);
    }
    GeneratedCase g = generateCase(caseSeed(L.seed, index), gopts);
    // One case in three runs without some of the default passes: every
    // pipeline must give the same answers.
    if (o.vary_passes && index % 3 == 1) {
      uint64_t bits = caseSeed(L.seed, index) * 0x9E3779B97F4A7C15ull >> 40;
      static const char* passes[] = {"remove_empty", "remove_bcast_squeeze", "consecutive_cast",
                                     "gather_before_pointwise", "allocation_order_inference"};
      for (size_t k = 0; k < 5; ++k)
        if ((bits >> k) & 1) g.fuzz_case.disabled_passes.push_back(passes[k]);
    }
    // The backend in the script, so that `check` and minimization use it.
    g.fuzz_case.comments.push_back(
        fmt::format("fuzz-backend: {}", backend == BackendChoice::Host ? "host" : "eval"));
    std::string script = renderScript(g.fuzz_case);
    ctx.setCurrentInput(script);
    ctx.count("generated");
    for (const auto& f : g.features) ctx.count("feature " + f);
    ctx.count("statements", static_cast<int64_t>(g.fuzz_case.body.size()));
    ctx.count("rejected-statements", g.rejected);
    if (!g.generator_failure.empty()) {
      ctx.count("fail");
      FailureReport f;
      f.category = g.generator_failure_category;
      f.message = g.generator_failure;
      f.signature = f.category + ": " + blurMessage(g.generator_failure);
      f.input = script;
      return f;
    }
    ctx.count(backend == BackendChoice::Host ? "host" : "eval");
    CheckResult r = checker->check(script, backend);
    ctx.count("kernels-compiled", r.kernels_compiled);
    switch (r.verdict) {
      case Verdict::Pass:
        ctx.count("pass");
        break;
      case Verdict::Invalid:
        ctx.count("invalid");
        break;
      case Verdict::Precision:
        ctx.count("precision");
        break;
      case Verdict::Fail:
        ctx.count("fail");
        break;
    }
    if (r.verdict == Verdict::Invalid && o.report_invalid) {
      r.verdict = Verdict::Fail;
      r.category = "invalid-" + r.category;
    }
    if (r.verdict == Verdict::Fail) return reportOf(r, script);
    if (o.cli_every > 0 && backend == BackendChoice::Host &&
        (index / std::max<int64_t>(o.host_every, 1)) % o.cli_every == 0) {
      ctx.count("cli");
      if (auto f = runCli(o.fusebox_exe, script, L.timeout)) return f;
    }
    return std::nullopt;
  };
  code.check_input = [&](const std::string& script,
                         WorkerContext&) -> std::optional<FailureReport> {
    std::string named = readExpectations(script).backend;
    BackendChoice backend = named.empty()
                                ? (o.backend == "eval" ? BackendChoice::Eval : BackendChoice::Host)
                                : parseBackend(named);
    return reportOf(checker->check(script, backend), script, true);
  };

  SupervisorOptions sopts;
  sopts.case_timeout_seconds = L.timeout;
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
        if (findings.add(r)) {
          fresh.push_back(r.signature);
          if (!L.quiet)
            std::cerr << fmt::format("new failure at case {}: {}\n", r.index,
                                     printable(r.signature, 200));
        }
      },
      [&](int64_t n) {
        auto now = std::chrono::steady_clock::now();
        if (L.quiet || now - last_print < std::chrono::seconds(30)) return;
        last_print = now;
        double s = std::chrono::duration<double>(now - start).count();
        std::cerr << fmt::format("{} cases in {:.0f} s ({:.1f}/s), {} failing\n", n, s, n / s,
                                 findings.failures());
      });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Minimize the first case of each new signature, within the time budget.
  auto min_deadline = std::chrono::steady_clock::now() +
                      std::chrono::milliseconds(static_cast<int64_t>(L.minimize_minutes * 60000));
  for (const auto& sig : fresh) {
    const Finding& f = findings.all().at(sig);
    std::string text = f.first.input;
    FuzzCase c;
    std::string note =
        fmt::format("case seed: {} (fusebox_fuzz print {})", caseSeed(L.seed, f.first.index),
                    caseSeed(L.seed, f.first.index));
    if (L.minimize && !text.empty() && parseCaseText(text, c) &&
        std::chrono::steady_clock::now() < min_deadline) {
      FuzzCase m = minimizeCase(c, [&](const FuzzCase& candidate) {
        if (std::chrono::steady_clock::now() > min_deadline) return false;
        auto r = sup.check(renderScript(candidate));
        return r && sameFailure(*r, f.first);
      });
      m.comments.push_back("minimized; failure: " + printable(sig, 200));
      text = renderScript(m);
    }
    findings.write(sig, text, ".py", note);
  }

  auto counters = sup.counters();
  auto get = [&](const char* k) { return counters.count(k) ? counters.at(k) : int64_t{0}; };
  std::cout << fmt::format(
      "fusions: {} cases in {:.1f} s ({:.2f}/s): {} pass, {} precision-only, {} invalid, {} "
      "failing; {} on host ({} kernels compiled), {} on eval{}; {} statements; worker restarts "
      "{}\n",
      done, seconds, done / std::max(seconds, 1e-9), get("pass"), get("precision"), get("invalid"),
      findings.failures() + findings.ignoredCases(), get("host"), get("kernels-compiled"),
      get("eval"), o.cli_every > 0 ? fmt::format(", {} through `fusebox run`", get("cli")) : "",
      get("statements"), sup.workerRestarts());
  std::string features;
  for (const auto& [name, n] : counters)
    if (name.rfind("feature ", 0) == 0) features += fmt::format(" {} {},", name.substr(8), n);
  if (!features.empty()) {
    features.pop_back();
    std::cout << "cases per feature:" << features << "\n";
  }
  findings.printSummary(std::cout);
  return findings.failures() == 0 ? 0 : 1;
}

int checkScriptFile(const std::string& path, const std::string& backend, bool second_run) {
  std::string script = readFile(path);
  const std::string named = readExpectations(script).backend;
  const std::string chosen = !backend.empty() ? backend : !named.empty() ? named : "host";
  CheckOptions copts;
  copts.second_run = second_run;
  DifferentialChecker checker(copts);
  CheckResult r = checker.check(script, parseBackend(chosen));
  const char* verdict[] = {"PASS", "INVALID", "PRECISION", "FAIL"};
  std::cout << fmt::format(
      "{}: {}{}\n", path, verdict[static_cast<int>(r.verdict)],
      r.category.empty() ? "" : fmt::format(" ({}: {})", r.category, r.message));
  return r.verdict == Verdict::Fail ? 1 : 0;
}

int minimizeScriptFile(const std::string& path, const std::string& out, const std::string& backend,
                       double timeout) {
  std::string script = readFile(path);
  FuzzCase c;
  if (!parseCaseText(script, c)) {
    std::cerr << path << ": not in the layout fusebox_fuzz writes (def ... / inputs = [...])\n";
    return 2;
  }
  std::unique_ptr<DifferentialChecker> checker;
  WorkerCode code;
  code.setup = [&]() { checker = std::make_unique<DifferentialChecker>(CheckOptions{}); };
  const std::string named = readExpectations(script).backend;
  const std::string chosen = !backend.empty() ? backend : !named.empty() ? named : "host";
  code.check_input = [&](const std::string& s, WorkerContext&) {
    return reportOf(checker->check(s, parseBackend(chosen)), s, true);
  };
  SupervisorOptions sopts;
  sopts.case_timeout_seconds = timeout;
  Supervisor sup(code, sopts);
  std::optional<FailureReport> original = sup.check(renderScript(c));
  if (!original) {
    std::cerr << path << ": passes; nothing to minimize\n";
    return 1;
  }
  std::cerr << "failure: " << printable(original->signature, 300) << "\n";
  FuzzCase m = minimizeCase(c, [&](const FuzzCase& candidate) {
    auto r = sup.check(renderScript(candidate));
    return r && sameFailure(*r, *original);
  });
  m.comments.push_back("minimized; failure: " + printable(original->signature, 200));
  std::ofstream(out) << renderScript(m);
  std::cerr << fmt::format("{} statements -> {}: {}\n", c.body.size(), m.body.size(), out);
  return 0;
}

}  // namespace fusebox::fuzz
