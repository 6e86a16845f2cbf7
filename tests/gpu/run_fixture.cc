// Runs one model on one input through the C API on a given device and writes its outputs as .npy:
// the GPU check's fixture runner (scripts/gpu_check.sh), which needs no Python binding.
//
//   quiver_run_fixture --prefix P --device gpu(0) --input IN.npy --out OUT [--repeat N]
//
// Loads P-symbol.json and P-0000.params, compiles for the device ("cpu", "gpu(N)"), copies the float32
// input (C order, little-endian) to the device, runs it N times (default 1), checks every run gives
// the same bytes as the first, and writes output k of the last run to OUT-outK.npy. Prints one JSON
// line: {"device", "outputs": [shapes], "first_ms" (the first run, plan compilation included),
// "median_ms" (the other runs), "repeats_identical"}. Exit status 0, or 1 with the reason on stderr.
#include <quiver/c_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void Check(int status, const std::string& what) {
  if (status != QV_OK)
    throw std::runtime_error(what + " failed (status " + std::to_string(status) + "): " + QvGetLastError());
}

struct Array {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// A float32 little-endian C-order .npy file (format versions 1 to 3).
Array ReadNpy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  char magic[8];
  f.read(magic, 8);
  if (!f || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + " is not a .npy file");
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    f.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    f.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  }
  std::string header(header_len, '\0');
  f.read(&header[0], header_len);
  if (!f) throw std::runtime_error(path + ": truncated header");
  if (header.find("'descr': '<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error(path + ": expected little-endian float32 in C order, header " + header);
  const size_t open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos)
    throw std::runtime_error(path + ": no shape in " + header);
  Array a;
  std::stringstream dims(header.substr(open + 1, close - open - 1));
  for (std::string d; std::getline(dims, d, ',');)
    if (d.find_first_not_of(' ') != std::string::npos) a.shape.push_back(std::stoll(d));
  size_t count = 1;
  for (int64_t d : a.shape) count *= static_cast<size_t>(d);
  a.data.resize(count);
  f.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(count * sizeof(float)));
  if (!f) throw std::runtime_error(path + ": fewer values than its shape says");
  return a;
}

void WriteNpy(const std::string& path, const Array& a) {
  std::string shape;
  for (int64_t d : a.shape) shape += std::to_string(d) + ", ";
  if (a.shape.size() > 1) shape.resize(shape.size() - 1);  // "(3,)" but "(2, 3)"
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  header.append(63 - (10 + header.size()) % 64, ' ');  // the data starts at a multiple of 64
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                static_cast<unsigned char>(header.size() >> 8)};
  f.write("\x93NUMPY\x01\x00", 8);
  f.write(reinterpret_cast<const char*>(len), 2);
  f << header;
  f.write(reinterpret_cast<const char*>(a.data.data()), static_cast<std::streamsize>(a.data.size() * sizeof(float)));
  if (!f) throw std::runtime_error("cannot write " + path);
}

struct Options {
  std::string prefix, device = "cpu", input, out;
  int repeat = 1;
};

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr,
               "quiver_run_fixture: %s\nusage: quiver_run_fixture --prefix P --device cpu|gpu(N) --input IN.npy "
               "--out OUT [--repeat N]\n",
               problem.c_str());
  std::exit(2);
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
      o.device = value;
    } else if (flag == "--input") {
      o.input = value;
    } else if (flag == "--out") {
      o.out = value;
    } else if (flag == "--repeat") {
      o.repeat = std::atoi(value.c_str());
      if (o.repeat < 1) Usage("--repeat wants an integer >= 1, got '" + value + "'");
    } else {
      Usage("unknown option " + flag);
    }
  }
  if (o.prefix.empty() || o.input.empty() || o.out.empty()) Usage("--prefix, --input and --out are required");
  return o;
}

// "cpu", "cpu(0)" -> (QV_CPU, 0); "gpu(N)" -> (QV_GPU, N).
std::pair<int, int> DeviceOf(const std::string& device) {
  if (device.rfind("gpu(", 0) == 0 && device.back() == ')')
    return {QV_GPU, std::atoi(device.substr(4, device.size() - 5).c_str())};
  return {QV_CPU, 0};
}

QvCachedOpHandle Load(const Options& o) {
  QvSymbolHandle sym = nullptr;
  Check(QvSymbolCreateFromFile((o.prefix + "-symbol.json").c_str(), &sym), "loading " + o.prefix + "-symbol.json");
  uint32_t n = 0, n_names = 0;
  QvNDArrayHandle* params = nullptr;
  const char** names = nullptr;
  int status = QvNDArrayLoad((o.prefix + "-0000.params").c_str(), &n, &params, &n_names, &names);
  if (status != QV_OK) QvSymbolFree(sym);
  Check(status, "loading " + o.prefix + "-0000.params");
  const char* keys[] = {"device"};
  const char* vals[] = {o.device.c_str()};
  QvCachedOpHandle op = nullptr;
  status = QvCreateCachedOpEx(sym, n, names, params, 1, keys, vals, &op, /*thread_safe=*/1);
  for (uint32_t i = 0; i < n; ++i) QvNDArrayFree(params[i]);
  QvSymbolFree(sym);
  Check(status, "creating the cached op on " + o.device);
  return op;
}

// One invocation; the outputs copied to the host.
std::vector<Array> Invoke(QvCachedOpHandle op, QvNDArrayHandle input) {
  uint32_t n_out = 0;
  QvNDArrayHandle* outs = nullptr;
  Check(QvInvokeAsync(op, 1, &input, &n_out, &outs), "QvInvokeAsync");
  const std::vector<QvNDArrayHandle> handles(outs, outs + n_out);
  std::vector<Array> result(n_out);
  std::string error;
  for (uint32_t k = 0; k < n_out; ++k) {
    uint32_t ndim = 0;
    const int64_t* shape = nullptr;
    int status = QvNDArrayGetShape(handles[k], &ndim, &shape);
    if (status == QV_OK) {
      result[k].shape.assign(shape, shape + ndim);
      size_t count = 1;
      for (int64_t d : result[k].shape) count *= static_cast<size_t>(d);
      result[k].data.resize(count);
      status = QvNDArraySyncCopyToCPU(handles[k], result[k].data.data(), count * sizeof(float));
    }
    if (status != QV_OK && error.empty()) error = "output " + std::to_string(k) + ": " + QvGetLastError();
  }
  for (QvNDArrayHandle h : handles) QvNDArrayFree(h);
  if (!error.empty()) throw std::runtime_error("the invocation failed: " + error);
  return result;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int Run(const Options& o) {
  const Array in = ReadNpy(o.input);
  QvCachedOpHandle op = Load(o);
  const auto [dev_type, dev_id] = DeviceOf(o.device);
  QvNDArrayHandle input = nullptr;
  Check(QvNDArrayCreate(in.shape.data(), static_cast<uint32_t>(in.shape.size()), dev_type, dev_id, QV_FLOAT32, &input),
        "creating the input on " + o.device);
  Check(QvNDArraySyncCopyFromCPU(input, in.data.data(), in.data.size() * sizeof(float)), "copying the input");
  std::vector<Array> first, last;
  std::vector<double> times;
  bool identical = true;
  try {
    for (int r = 0; r < o.repeat; ++r) {
      const auto t0 = Clock::now();
      last = Invoke(op, input);
      times.push_back(Ms(Clock::now() - t0));
      if (r == 0) first = last;
      for (size_t k = 0; k < last.size(); ++k)
        identical = identical && last[k].data.size() == first[k].data.size() &&
                    std::memcmp(last[k].data.data(), first[k].data.data(), last[k].data.size() * sizeof(float)) == 0;
    }
  } catch (...) {
    QvNDArrayFree(input);
    QvFreeCachedOp(op);
    throw;
  }
  QvNDArrayFree(input);
  QvFreeCachedOp(op);
  std::string shapes;
  for (size_t k = 0; k < last.size(); ++k) {
    WriteNpy(o.out + "-out" + std::to_string(k) + ".npy", last[k]);
    std::string s;
    for (int64_t d : last[k].shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
    shapes += (k ? ", [" : "[") + s + "]";
  }
  std::vector<double> rest(times.begin() + 1, times.end());
  std::sort(rest.begin(), rest.end());
  const double median = rest.empty() ? times[0] : rest[rest.size() / 2];
  std::printf("{\"device\": \"%s\", \"outputs\": [%s], \"first_ms\": %.3f, \"median_ms\": %.3f, \"repeats\": %d, "
              "\"repeats_identical\": %s}\n",
              o.device.c_str(), shapes.c_str(), times[0], median, o.repeat, identical ? "true" : "false");
  return identical ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  try {
    return Run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quiver_run_fixture: %s\n", e.what());
    return 1;
  }
}
