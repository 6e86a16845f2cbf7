// Latency and throughput of one model under concurrent clients.
//
//   quiver_bench --prefix P [--epoch 0] [--batch 1] [--clients 1] [--inflight 1] [--iters 50]
//                [--warmup 5] [--shape 3,224,224] [--device cpu|gpu(N)] [--option key=value ...]
//                [--profile 0|1] [--trace FILE] [--extra-input NAME:D0,D1,...=V0,V1,... ...]
//
// C client threads share ONE cached op created with thread_safe = 1; each --option adds a
// QvCreateCachedOpEx flag (for instance max_batch_size=16 to merge the clients' requests). Each client keeps up to D
// invocations in flight on its own random input (fixed seed): with D = 1 it submits and waits
// (QvNDArrayWaitToRead); with D > 1 it submits until D are outstanding and learns of completions
// through QvNDArrayOnReady callbacks. --device compiles the op for that device (flag "device"); the
// inputs then live on it too, so a GPU run's latency includes no host-to-device copy of the input and
// ends when the output is readable on the device. An invocation's latency runs from just before
// QvInvokeAsync to the moment its output is readable (for D > 1, as seen by the callback thread).
//
// Models with several inputs: --shape is the first input's (or, for several, the one not named by an
// --extra-input), random; each --extra-input gives another input's whole shape (batch included) and
// values repeated to fill it (a valid length, an image's size), passed in the op's input order.
// --profile 1 runs the timed phase with the runtime's profiler on (QvProfilerStart): its cost.
// --trace FILE does too, and writes the timed phase's spans to FILE as a Chrome trace.
//
// Prints ONE JSON line on stdout (logs go to stderr), the contract bench/compare_mxnet.sh reads:
//   {"engine":"quiver","model":..,"batch":..,"clients":..,"inflight":..,"iters":..,"p50_ms":..,
//    "p90_ms":..,"p99_ms":..,"throughput_per_s":..}  plus a few descriptive keys (among them "precision",
//    what the op computes in: "auto" resolved, QvCachedOpGetPrecision), and the op's
//    statistics (QvCachedOpGetStats) as "stats_before" (after the warm-up) and "stats" (at the end):
//    their difference is the timed phase's (with a request queue: the batch sizes it formed).
// Throughput is images per second over all clients, from the moment all start together (after their
// warm-up) until the last one finishes.
#include <quiver/c_api.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void Check(int status, const std::string& what) {
  if (status != QV_OK)
    throw std::runtime_error(what + " failed (status " + std::to_string(status) + "): " + QvGetLastError());
}

// The op's statistics JSON now.
std::string Stats(QvCachedOpHandle op) {
  const char* json = nullptr;
  Check(QvCachedOpGetStats(op, &json), "QvCachedOpGetStats");
  return json;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct Options {
  std::string prefix;
  std::string device = "cpu";  // the cached op's "device" flag; inputs are created there
  int epoch = 0, batch = 1, clients = 1, inflight = 1, iters = 50, warmup = 5;
  bool profile = false;
  std::string trace;  // --trace: where the timed phase's Chrome trace goes
  struct ExtraInput {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> values;  // repeated to fill the shape
  };
  std::vector<ExtraInput> extra_inputs;
  std::vector<int64_t> shape = {3, 224, 224};  // one sample, without the batch dimension
  std::vector<std::pair<std::string, std::string>> flags;  // --option key=value
};

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr,
               "quiver_bench: %s\nusage: quiver_bench --prefix P [--epoch 0] [--batch 1] [--clients 1] "
               "[--inflight 1] [--iters 50] [--warmup 5] [--shape 3,224,224] [--device cpu|gpu(N)] "
               "[--option key=value ...] [--profile 0|1] [--trace FILE] [--extra-input NAME:D0,D1,...=V0,V1,... ...]\n",
               problem.c_str());
  std::exit(2);
}

int PositiveInt(const std::string& flag, const std::string& value, int min) {
  char* end = nullptr;
  const long n = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n < min || n > 1000000)
    Usage(flag + " wants an integer >= " + std::to_string(min) + ", got '" + value + "'");
  return static_cast<int>(n);
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  for (size_t p = 0; p <= text.size();) {
    const size_t q = std::min(text.find(',', p), text.size());
    parts.push_back(text.substr(p, q - p));
    p = q + 1;
  }
  return parts;
}

Options::ExtraInput ParseExtraInput(const std::string& text) {
  const size_t colon = text.find(':'), eq = text.find('=');
  if (colon == std::string::npos || eq == std::string::npos || colon == 0 || eq < colon)
    Usage("--extra-input wants NAME:D0,D1,...=V0,V1,..., got '" + text + "'");
  Options::ExtraInput extra{text.substr(0, colon), {}, {}};
  for (const std::string& d : SplitCommas(text.substr(colon + 1, eq - colon - 1)))
    extra.shape.push_back(PositiveInt("--extra-input", d, 1));
  for (const std::string& v : SplitCommas(text.substr(eq + 1))) {
    char* end = nullptr;
    extra.values.push_back(std::strtof(v.c_str(), &end));
    if (v.empty() || *end != '\0') Usage("--extra-input: '" + v + "' is not a number");
  }
  return extra;
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) Usage(flag + " wants a value");
    const std::string value = argv[i + 1];
    if (flag == "--prefix") {
      o.prefix = value;
    } else if (flag == "--device") {
      if (value != "cpu" && value != "cpu(0)" && (value.rfind("gpu(", 0) != 0 || value.back() != ')'))
        Usage("--device wants cpu or gpu(N), got '" + value + "'");
      o.device = value;
    } else if (flag == "--epoch") {
      o.epoch = PositiveInt(flag, value, 0);
    } else if (flag == "--batch") {
      o.batch = PositiveInt(flag, value, 1);
    } else if (flag == "--clients") {
      o.clients = PositiveInt(flag, value, 1);
    } else if (flag == "--inflight") {
      o.inflight = PositiveInt(flag, value, 1);
    } else if (flag == "--iters") {
      o.iters = PositiveInt(flag, value, 1);
    } else if (flag == "--extra-input") {
      o.extra_inputs.push_back(ParseExtraInput(value));
    } else if (flag == "--profile") {
      if (value != "0" && value != "1") Usage("--profile wants 0 or 1, got '" + value + "'");
      o.profile = value == "1";
    } else if (flag == "--trace") {
      o.trace = value;
      o.profile = true;
    } else if (flag == "--warmup") {
      o.warmup = PositiveInt(flag, value, 0);
    } else if (flag == "--option") {
      const size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0) Usage("--option wants key=value, got '" + value + "'");
      o.flags.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (flag == "--shape") {
      o.shape.clear();
      for (const std::string& d : SplitCommas(value)) o.shape.push_back(PositiveInt(flag, d, 1));
    } else {
      Usage("unknown option " + flag);
    }
  }
  if (o.prefix.empty()) Usage("--prefix is required");
  return o;
}

// One op shared by every client; max_inflight admits every client's window at once.
QvCachedOpHandle LoadModel(const Options& o) {
  QvSymbolHandle sym = nullptr;
  Check(QvSymbolCreateFromFile((o.prefix + "-symbol.json").c_str(), &sym), "loading the symbol");
  char params_path[4096];
  std::snprintf(params_path, sizeof params_path, "%s-%04d.params", o.prefix.c_str(), o.epoch);
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle* params = nullptr;
  const char** names = nullptr;
  int status = QvNDArrayLoad(params_path, &n, &params, &n_names, &names);
  if (status != QV_OK) QvSymbolFree(sym);
  Check(status, std::string("loading ") + params_path);
  std::vector<std::pair<std::string, std::string>> flags = {
      {"device", o.device}, {"max_inflight", std::to_string(std::max(64, o.clients * o.inflight))}};
  flags.insert(flags.end(), o.flags.begin(), o.flags.end());
  std::vector<const char*> keys, vals;
  for (const auto& [k, v] : flags) {
    keys.push_back(k.c_str());
    vals.push_back(v.c_str());
  }
  QvCachedOpHandle op = nullptr;
  status = QvCreateCachedOpEx(sym, n, names, params, static_cast<int>(flags.size()), keys.data(), vals.data(), &op,
                              /*thread_safe=*/1);
  for (uint32_t i = 0; i < n; ++i) QvNDArrayFree(params[i]);
  QvSymbolFree(sym);
  Check(status, "creating the cached op");
  return op;
}

// Submits one invocation; returns its first output (the caller's) and frees any others at once.
QvNDArrayHandle Submit(QvCachedOpHandle op, std::vector<QvNDArrayHandle>& inputs) {
  uint32_t n_out = 0;
  QvNDArrayHandle* out = nullptr;
  Check(QvInvokeAsync(op, static_cast<uint32_t>(inputs.size()), inputs.data(), &n_out, &out), "QvInvokeAsync");
  for (uint32_t i = 1; i < n_out; ++i) QvNDArrayFree(out[i]);
  return out[0];
}

// One client thread's state. Completion callbacks update it under `mu`.
class Client {
 public:
  Client(QvCachedOpHandle op, const Options& o, unsigned seed) : op_(op), inflight_(o.inflight) {
    uint32_t n = 0;
    const char** names = nullptr;
    Check(QvCachedOpListInputs(op, &n, &names), "QvCachedOpListInputs");
    std::mt19937 rng(seed);
    for (uint32_t i = 0; i < n; ++i) {
      const auto extra = std::find_if(o.extra_inputs.begin(), o.extra_inputs.end(),
                                      [&](const Options::ExtraInput& e) { return e.name == names[i]; });
      std::vector<int64_t> shape = {o.batch};
      shape.insert(shape.end(), o.shape.begin(), o.shape.end());
      if (extra != o.extra_inputs.end()) shape = extra->shape;
      size_t count = 1;
      for (int64_t d : shape) count *= static_cast<size_t>(d);
      std::vector<float> data(count);
      std::normal_distribution<float> normal;
      for (size_t k = 0; k < count; ++k)
        data[k] = extra != o.extra_inputs.end() ? extra->values[k % extra->values.size()] : normal(rng);
      inputs_.push_back(NewInput(o, shape, data));
    }
    for (const auto& e : o.extra_inputs)
      if (std::none_of(names, names + n, [&](const char* name) { return e.name == name; }))
        throw std::runtime_error("--extra-input names '" + e.name + "', which is not an input of the model");
  }
  ~Client() {
    for (QvNDArrayHandle a : inputs_) QvNDArrayFree(a);
  }

  // Runs n invocations, keeping up to D in flight; returns their latencies in ms.
  std::vector<double> Run(int n) {
    latencies_.clear();
    if (inflight_ == 1) {
      for (int i = 0; i < n; ++i) {
        const auto t0 = Clock::now();
        QvNDArrayHandle out = Submit(op_, inputs_);
        const int status = QvNDArrayWaitToRead(out);
        const auto t1 = Clock::now();
        QvNDArrayFree(out);
        Check(status, "an invocation");
        latencies_.push_back(Ms(t1 - t0));
      }
      return latencies_;
    }
    for (int i = 0; i < n; ++i) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        done_.wait(lock, [&] { return outstanding_ < inflight_ || !error_.empty(); });
        if (!error_.empty()) break;
        ++outstanding_;
      }
      auto* ticket = new Ticket{this, Clock::now()};
      QvNDArrayHandle out = nullptr;
      int status = QV_OK;
      try {
        out = Submit(op_, inputs_);
      } catch (const std::exception& e) {
        Finish(ticket, Clock::now(), QV_ERR_INTERNAL, e.what());
        break;
      }
      // The callback frees `out`; it may run right here if the output is ready already.
      status = QvNDArrayOnReady(out, &Client::OnReady, ticket);
      if (status != QV_OK) {
        Finish(ticket, Clock::now(), status, QvGetLastError());
        QvNDArrayFree(out);
        break;
      }
    }
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return outstanding_ == 0; });
    if (!error_.empty()) throw std::runtime_error("an invocation failed: " + error_);
    return latencies_;
  }

 private:
  struct Ticket {
    Client* client;
    Clock::time_point submitted;
  };

  static void OnReady(QvNDArrayHandle out, int status, void* user) {
    const auto now = Clock::now();
    auto* ticket = static_cast<Ticket*>(user);
    ticket->client->Finish(ticket, now, status, status == QV_OK ? "" : QvGetLastError());
    QvNDArrayFree(out);
  }

  void Finish(Ticket* ticket, Clock::time_point now, int status, const std::string& error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (status == QV_OK) {
      latencies_.push_back(Ms(now - ticket->submitted));
    } else if (error_.empty()) {
      error_ = error.empty() ? "status " + std::to_string(status) : error;
    }
    delete ticket;
    --outstanding_;
    done_.notify_all();  // under the lock: Run may return and destroy *this once it sees 0
  }

  // An input on the op's device holding `data`.
  static QvNDArrayHandle NewInput(const Options& o, const std::vector<int64_t>& shape, const std::vector<float>& data) {
    const bool gpu = o.device.rfind("gpu(", 0) == 0;
    const int dev_id = gpu ? std::atoi(o.device.c_str() + 4) : 0;
    QvNDArrayHandle input = nullptr;
    Check(QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), gpu ? QV_GPU : QV_CPU, dev_id, QV_FLOAT32,
                          &input),
          "creating an input");
    Check(QvNDArraySyncCopyFromCPU(input, data.data(), data.size() * sizeof(float)), "filling an input");
    return input;
  }

  QvCachedOpHandle op_;
  std::vector<QvNDArrayHandle> inputs_;  // in the op's input order
  const int inflight_;
  std::mutex mu_;
  std::condition_variable done_;
  int outstanding_ = 0;
  std::vector<double> latencies_;
  std::string error_;
};

// numpy.percentile's default (linear interpolation between closest ranks), for comparable numbers.
double Percentile(const std::vector<double>& sorted, double p) {
  const double pos = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// (busy, total) CPU ticks of the whole machine, to tell how much other processes ran meanwhile.
bool MachineTicks(double* busy, double* total) {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  stat >> cpu;
  double v, sum = 0, idle = 0;
  for (int i = 0; i < 10 && stat >> v; ++i) {
    sum += v;
    if (i == 3 || i == 4) idle += v;  // idle, iowait
  }
  *busy = sum - idle;
  *total = sum;
  return cpu == "cpu" && sum > 0;
}

double OwnCpuTicks() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const double s = u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  return s * static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int Run(const Options& o) {
  const auto t_load = Clock::now();
  QvCachedOpHandle op = LoadModel(o);
  std::vector<std::unique_ptr<Client>> clients;
  for (int c = 0; c < o.clients; ++c) clients.push_back(std::make_unique<Client>(op, o, 1234u + c));
  Client(op, o, 0).Run(1);  // compiles the plan for this shape before any client starts
  std::fprintf(stderr, "quiver_bench: %s loaded and compiled in %.0f ms; %d client(s) x %d in flight, batch %d\n",
               o.prefix.c_str(), Ms(Clock::now() - t_load), o.clients, o.inflight, o.batch);

  // Every client warms up, then all start the timed phase together.
  std::mutex mu;
  std::condition_variable cv;
  int warmed = 0;
  bool go = false;
  std::vector<std::vector<double>> latencies(o.clients);
  std::vector<Clock::time_point> finished(o.clients);
  std::vector<std::string> errors(o.clients);
  std::vector<std::thread> threads;
  for (int c = 0; c < o.clients; ++c) {
    threads.emplace_back([&, c] {
      try {
        if (o.warmup > 0) clients[c]->Run(o.warmup);
      } catch (const std::exception& e) {
        errors[c] = e.what();
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        ++warmed;
        cv.notify_all();
        cv.wait(lock, [&] { return go; });
      }
      if (!errors[c].empty()) return;
      try {
        latencies[c] = clients[c]->Run(o.iters);
      } catch (const std::exception& e) {
        errors[c] = e.what();
      }
      finished[c] = Clock::now();
    });
  }
  Clock::time_point start;
  double busy0 = 0, total0 = 0, busy1 = 0, total1 = 0, own0 = 0;
  std::string stats_before;
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return warmed == o.clients; });
    stats_before = Stats(op);
    if (o.profile) Check(QvProfilerStart(), "QvProfilerStart");
    MachineTicks(&busy0, &total0);
    own0 = OwnCpuTicks();
    start = Clock::now();
    go = true;
    cv.notify_all();
  }
  for (auto& t : threads) t.join();
  const bool have_ticks = MachineTicks(&busy1, &total1);
  const double own = OwnCpuTicks() - own0;
  const std::string stats_after = Stats(op);
  const char* precision = nullptr;  // a static string: it outlives the op
  Check(QvCachedOpGetPrecision(op, &precision), "QvCachedOpGetPrecision");
  if (o.profile) Check(QvProfilerStop(), "QvProfilerStop");
  if (!o.trace.empty()) Check(QvProfilerDumpTrace(o.trace.c_str()), "QvProfilerDumpTrace");
  clients.clear();
  QvFreeCachedOp(op);
  for (const auto& e : errors)
    if (!e.empty()) throw std::runtime_error(e);

  const double wall_s = Ms(*std::max_element(finished.begin(), finished.end()) - start) / 1e3;
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  double mean = 0;
  for (double x : all) mean += x / static_cast<double>(all.size());

  std::string shape, options;
  for (int64_t d : o.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
  for (const auto& [k, v] : o.flags) options += (options.empty() ? "" : " ") + k + "=" + v;
  std::printf("{\"engine\": \"quiver\", \"model\": \"%s\", \"device\": \"%s\", \"batch\": %d, "
              "\"clients\": %d, \"inflight\": %d, \"iters\": %d, \"warmup\": %d, \"shape\": [%s], "
              "\"options\": \"%s\", \"precision\": \"%s\", \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, "
              "\"mean_ms\": %.3f, \"throughput_per_s\": %.3f",
              Basename(o.prefix).c_str(), o.device.c_str(), o.batch, o.clients, o.inflight, o.iters, o.warmup,
              shape.c_str(), options.c_str(), precision,
              Percentile(all, 50), Percentile(all, 90), Percentile(all, 99), mean,
              static_cast<double>(o.batch) * o.clients * o.iters / wall_s);
  if (have_ticks && total1 > total0) {
    // Share of the machine's CPU time others used while we measured: near 0 for trustworthy numbers.
    const double others = std::max(0.0, (busy1 - busy0) - own) / (total1 - total0);
    std::printf(", \"other_load\": %.3f", others);
    if (others > 0.1)
      std::fprintf(stderr, "quiver_bench: warning: other processes used %.0f%% of the CPU meanwhile\n",
                   100 * others);
  }
  std::printf(", \"stats_before\": %s, \"stats\": %s}\n", stats_before.c_str(), stats_after.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  try {
    return Run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quiver_bench: %s\n", e.what());
    return 1;
  }
}
