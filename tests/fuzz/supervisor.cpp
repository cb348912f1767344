#include "supervisor.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <stdexcept>

#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fusebox::fuzz {

namespace {

constexpr size_t kMaxInput = 1 << 20;
constexpr int kMaxCounters = 64;
constexpr size_t kCounterName = 40;

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// False when the other side is gone (its death is noticed by receive()).
bool sendAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// In the worker: a supervisor that went away ends the worker.
void writeAll(int fd, const std::string& data) {
  if (!sendAll(fd, data)) _exit(3);
}

bool readAll(int fd, char* buf, size_t size) {
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::read(fd, buf + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// Messages are a tag byte, a decimal length, '\n' and the payload.
std::string frame(char tag, const std::string& payload) {
  return fmt::format("{}{}\n", tag, payload.size()) + payload;
}

bool readFrame(int fd, char& tag, std::string& payload) {
  std::string header;
  char c;
  while (true) {
    if (!readAll(fd, &c, 1)) return false;
    if (c == '\n') break;
    header += c;
  }
  if (header.empty()) return false;
  tag = header[0];
  size_t size = std::stoull(header.substr(1));
  payload.assign(size, '\0');
  return size == 0 || readAll(fd, payload.data(), size);
}

std::string signalName(int sig) {
  const char* d = strsignal(sig);
  return fmt::format("signal {} ({})", sig, d ? d : "?");
}

}  // namespace

struct Supervisor::Shared {
  std::atomic<int64_t> current{-1};
  std::atomic<int64_t> started_ns{0};
  std::atomic<int64_t> busy{0};
  std::atomic<int64_t> stop{0};
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> input_size{0};
  char input[kMaxInput];
  std::atomic<int> n_counters{0};
  char counter_names[kMaxCounters][kCounterName];
  std::atomic<int64_t> counter_values[kMaxCounters];
};

std::string encodeReport(const FailureReport& r) {
  std::string s;
  for (const std::string* f : {&r.category, &r.signature, &r.message, &r.input})
    s += fmt::format("{}\n", f->size()) + *f;
  return fmt::format("{}\n", r.index) + s;
}

FailureReport decodeReport(const std::string& s) {
  FailureReport r;
  size_t pos = 0;
  auto line = [&]() {
    size_t nl = s.find('\n', pos);
    std::string l = s.substr(pos, nl - pos);
    pos = nl + 1;
    return l;
  };
  r.index = std::stoll(line());
  for (std::string* f : {&r.category, &r.signature, &r.message, &r.input}) {
    size_t n = std::stoull(line());
    *f = s.substr(pos, n);
    pos += n;
  }
  return r;
}

namespace {

class SharedContext : public WorkerContext {
 public:
  explicit SharedContext(void* shared) : shared_(shared) {}
  void setCurrentInput(const std::string& input) override;
  void count(const std::string& counter, int64_t n) override;

 private:
  void* shared_;
};

}  // namespace

Supervisor::Supervisor(WorkerCode code, SupervisorOptions options)
    : code_(std::move(code)), options_(options) {
  void* p =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("mmap of the shared state failed");
  shared_ = new (p) Shared();
  // A worker that dies while we write to it must not take us down.
  signal(SIGPIPE, SIG_IGN);
}

Supervisor::~Supervisor() {
  stopWorker();
  shared_->~Shared();
  munmap(shared_, sizeof(Shared));
}

void SharedContext::setCurrentInput(const std::string& input) {
  auto* s = static_cast<Supervisor::Shared*>(shared_);
  size_t n = std::min(input.size(), kMaxInput);
  std::memcpy(s->input, input.data(), n);
  s->input_size = static_cast<int64_t>(n);
}

void SharedContext::count(const std::string& counter, int64_t n) {
  auto* s = static_cast<Supervisor::Shared*>(shared_);
  int count = s->n_counters.load();
  for (int i = 0; i < count; ++i)
    if (counter == s->counter_names[i]) {
      s->counter_values[i] += n;
      return;
    }
  if (count >= kMaxCounters) return;
  std::strncpy(s->counter_names[count], counter.c_str(), kCounterName - 1);
  s->counter_values[count] = n;
  s->n_counters = count + 1;  // only the worker writes; one worker at a time
}

std::map<std::string, int64_t> Supervisor::counters() const {
  std::map<std::string, int64_t> m;
  for (int i = 0; i < shared_->n_counters.load(); ++i)
    m[shared_->counter_names[i]] = shared_->counter_values[i].load();
  return m;
}

void Supervisor::startWorker() {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) throw std::runtime_error("pipe failed");
  shared_->busy = 0;
  shared_->current = -1;
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // The worker must not outlive a supervisor that was killed.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(down[1]);
    close(up[0]);
    to_worker_ = down[0];
    from_worker_ = up[1];
    if (options_.address_space_limit_mb > 0) {
      rlimit lim{};
      lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(options_.address_space_limit_mb) << 20;
      setrlimit(RLIMIT_AS, &lim);
    }
    workerMain();
    _exit(0);
  }
  close(down[0]);
  close(up[1]);
  pid_ = pid;
  to_worker_ = down[1];
  from_worker_ = up[0];
}

void Supervisor::stopWorker() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  close(to_worker_);
  close(from_worker_);
  pid_ = -1;
}

void Supervisor::workerMain() {
  SharedContext ctx(shared_);
  if (code_.setup) code_.setup();
  char tag;
  std::string payload;
  while (readFrame(to_worker_, tag, payload)) {
    if (tag == 'R') {
      int64_t begin = 0, end = 0;
      std::sscanf(payload.c_str(), "%ld %ld", &begin, &end);
      int64_t i = begin;
      for (; i < end && shared_->stop.load() == 0; ++i) {
        shared_->input_size = 0;
        shared_->current = i;
        shared_->started_ns = nowNs();
        shared_->busy = 1;
        std::optional<FailureReport> r = code_.run_index(i, ctx);
        shared_->busy = 0;
        shared_->done += 1;
        if (r) {
          r->index = i;
          writeAll(from_worker_, frame('F', encodeReport(*r)));
        }
      }
      writeAll(from_worker_, frame('D', std::to_string(i)));
    } else if (tag == 'C') {
      shared_->current = -1;
      shared_->started_ns = nowNs();
      ctx.setCurrentInput(payload);
      shared_->busy = 1;
      std::optional<FailureReport> r = code_.check_input(payload, ctx);
      shared_->busy = 0;
      writeAll(from_worker_, r ? frame('F', encodeReport(*r)) : frame('K', ""));
    } else {
      break;
    }
  }
}

std::optional<std::string> Supervisor::receive(FailureReport* death,
                                               const std::function<void()>& on_tick) {
  while (true) {
    pollfd p{from_worker_, POLLIN, 0};
    int ready = poll(&p, 1, 100);
    if (on_tick) on_tick();
    if (ready > 0) {
      char tag;
      std::string payload;
      // A whole frame follows once its first byte is there (the worker writes
      // each frame in one go), unless the worker died mid-write.
      if (readFrame(from_worker_, tag, payload)) return std::string(1, tag) + payload;
    }
    int status = 0;
    pid_t w = waitpid(pid_, &status, WNOHANG);
    bool timed_out = shared_->busy.load() != 0 &&
                     static_cast<double>(nowNs() - shared_->started_ns.load()) * 1e-9 >
                         options_.case_timeout_seconds;
    if (w == 0 && !timed_out) continue;
    if (w == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    death->index = shared_->current.load();
    death->input.assign(shared_->input, static_cast<size_t>(shared_->input_size.load()));
    if (timed_out) {
      death->category = "hang";
      death->message = fmt::format("no answer after {} s", options_.case_timeout_seconds);
    } else if (WIFSIGNALED(status)) {
      death->category = "crash";
      death->message = signalName(WTERMSIG(status));
    } else {
      death->category = "crash";
      death->message = fmt::format("the worker exited with code {}", WEXITSTATUS(status));
    }
    death->signature = death->category + ": " + death->message;
    close(to_worker_);
    close(from_worker_);
    pid_ = -1;
    ++restarts_;
    return std::nullopt;
  }
}

int64_t Supervisor::runRange(int64_t begin, int64_t end,
                             std::optional<std::chrono::steady_clock::time_point> deadline,
                             const std::function<void(const FailureReport&)>& on_failure,
                             const std::function<void(int64_t)>& on_progress) {
  shared_->stop = 0;
  int64_t next = begin;
  auto last_progress = std::chrono::steady_clock::now();
  auto tick = [&]() {
    auto now = std::chrono::steady_clock::now();
    if (deadline && now > *deadline) shared_->stop = 1;
    if (on_progress && now - last_progress > std::chrono::seconds(1)) {
      on_progress(shared_->done.load());
      last_progress = now;
    }
  };
  while (next < end && shared_->stop.load() == 0) {
    if (pid_ <= 0) startWorker();
    sendAll(to_worker_, frame('R', fmt::format("{} {}", next, end)));
    while (true) {
      FailureReport death;
      std::optional<std::string> msg = receive(&death, tick);
      if (!msg) {
        on_failure(death);
        if (death.index < next) return next;  // died outside a case: do not loop
        next = death.index + 1;
        break;
      }
      if ((*msg)[0] == 'F') {
        on_failure(decodeReport(msg->substr(1)));
      } else if ((*msg)[0] == 'D') {
        next = std::stoll(msg->substr(1));
        break;
      }
    }
  }
  return next;
}

std::optional<FailureReport> Supervisor::check(const std::string& input) {
  if (pid_ <= 0) startWorker();
  sendAll(to_worker_, frame('C', input));
  FailureReport death;
  std::optional<std::string> msg = receive(&death, {});
  if (!msg) {
    death.input = input;
    return death;
  }
  if ((*msg)[0] == 'F') return decodeReport(msg->substr(1));
  return std::nullopt;
}

}  // namespace fusebox::fuzz
