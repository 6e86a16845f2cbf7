// The seam every device plugs into. A plan (plan/) is device-neutral: it orders the nodes, plans memory
// and runs steps; everything that depends on the device goes through one Backend, found by device type
// (FindBackend). A backend says which operators it runs and what it can fuse, builds a kernel per node
// in layouts of its choosing (and converts them to plain row-major), packs parameters once per cached
// op, owns its device's memory, and runs an invocation's steps with the compute it leases (the CPU: a
// share of the thread budget, synchronously; a GPU: a stream, completing later through FinishAsync).
#pragma once

#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/device.h"
#include "common/precision.h"
#include "common/profiler.h"
#include "graph/fusion_rules.h"
#include "ops/attrs.h"
#include "tensor/constant.h"
#include "tensor/device_memory.h"
#include "tensor/layout.h"
#include "tensor/tensor_type.h"

namespace qv {

// What one step is handed when it runs.
struct ExecArgs {
  std::vector<void*> inputs;   // the runtime inputs, in the layouts the kernel asked for
  std::vector<void*> outputs;  // in the layouts the kernel declared
  int threads = 1;             // compute threads the execution leased for this step (CPU backends)
};

// A node's computation, built once per plan and run by any number of invocations at once: Execute
// must be thread-safe.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void Execute(const ExecArgs& args) const = 0;
  // What computes it where the backend chose among several ways (a oneDNN implementation's name, or
  // the CPU's Winograd convolution with its matrix product's), for profiles; empty if nothing to say.
  virtual std::string Implementation() const { return {}; }
};

// Parameters packed into a backend's layouts, shared by every plan of one cached op.
class ConstantStore {
 public:
  virtual ~ConstantStore() = default;
  // The parameter as it should be kept from now on: if kernels read it in exactly one packed layout,
  // that packed copy (its plain bytes are then freed with `param`); otherwise `param` itself.
  virtual ConstantPtr Repack(const ConstantPtr& param) = 0;
};

// A value flowing into a node: its logical type, its layout, and its data if it is a parameter.
struct ValueInfo {
  TensorType type;
  LayoutPtr layout;
  ConstantPtr constant;  // null for values computed at run time
};

struct KernelRequest {
  const Attrs& attrs;  // the node's attributes and fused post-ops
  ConstantStore& constants;
  const std::vector<ValueInfo>& inputs;
  const std::vector<TensorType>& outputs;  // inferred by the operator
  Precision precision;  // the op's, resolved (never kAuto): what the kernel may compute in
  Device device{};      // where the kernel will run (a GPU backend uploads constants and plans there)
};

struct KernelBuild {
  std::vector<int> runtime_inputs;  // node input indices read at execution time, in ExecArgs order
  std::vector<LayoutPtr> input_layouts;  // the layout required for each runtime input
  std::vector<LayoutPtr> output_layouts;
  // Index into runtime_inputs whose contents output 0 must hold before Execute (a fused residual sum).
  int accumulate_input = -1;
  // Floating-point operations of one run, where arithmetic rather than memory bounds it (convolutions,
  // inner products); with the bytes it moves, this says how much compute the kernel is worth.
  double flops = 0;
  std::unique_ptr<Kernel> kernel;
};

// Part of a plan input as an invocation binds it: `bytes` at `data`, in host memory (`host`) where the
// plan's device is not the host. One piece covering the whole input is read in place (staged onto the
// device if in host memory); a batch's requests give one piece each, gathered in order.
struct InputPiece {
  const void* data = nullptr;
  size_t bytes = 0;
  bool host = false;
};
// Part of a plan output as an invocation binds it (memory of the plan's device): one piece covering
// the whole output is written in place; a batch's requests' pieces take consecutive rows.
struct OutputPiece {
  void* data = nullptr;
  size_t bytes = 0;
};
using InputBinding = std::vector<InputPiece>;
using OutputBinding = std::vector<OutputPiece>;

// One invocation's run of a plan on a backend: the compute it holds and the order of its steps.
class Execution {
 public:
  // Called exactly once with null, or with the failure of the work (an Error), once it has completed.
  using Done = std::function<void(std::exception_ptr failure)>;

  // Waits for whatever was started and not finished (a step that threw), so the caller may free
  // the buffers the steps use afterwards. Never throws.
  virtual ~Execution() = default;
  // Runs one step (`node` names it in errors) with the compute `parallelism` (from StepParallelism) is
  // worth. Throws Error on failure.
  virtual void Run(const Kernel& kernel, ExecArgs& args, int parallelism, const std::string& node) = 0;
  // Returns once every step run so far has completed (the CPU runs them synchronously: at once).
  virtual void Finish() = 0;
  // Like Finish without waiting where the device allows it: returns at once, and `done` runs when
  // every step run so far has completed, on a thread of the backend's that runs nothing else of the
  // caller's. The execution may be destroyed as soon as this returns: what its steps use of its own
  // (a stream, staged inputs) stays alive until then. Never throws. The default (synchronous
  // backends) calls Finish, then `done` on this thread.
  virtual void FinishAsync(Done done) {
    try {
      Finish();
    } catch (...) {
      done(std::current_exception());
      return;
    }
    done(nullptr);
  }
  // Copies `pieces` one after another into `dst`, a device buffer of `bytes`, and zero-fills the rest
  // (a batch's padding rows), in order with the steps; host pieces are staged first. Throws Error. The
  // default is for devices computing in host memory.
  virtual void Gather(void* dst, size_t bytes, const InputBinding& pieces) {
    char* at = static_cast<char*>(dst);
    for (const InputPiece& piece : pieces) {
      if (piece.bytes != 0) std::memcpy(at, piece.data, piece.bytes);
      at += piece.bytes;
    }
    std::memset(at, 0, bytes - static_cast<size_t>(at - static_cast<char*>(dst)));
  }
  // Copies consecutive stretches of `src`, one per piece, into `pieces`, in order with the steps.
  // Throws Error. The default is for devices computing in host memory.
  virtual void Scatter(const void* src, const OutputBinding& pieces) {
    const char* at = static_cast<const char*>(src);
    for (const OutputPiece& piece : pieces) {
      if (piece.bytes != 0) std::memcpy(piece.data, at, piece.bytes);
      at += piece.bytes;
    }
  }
  // Copies `bytes` between two of the device's buffers in order with the steps (a fused sum's residual
  // into the output its kernel adds to). Throws Error. The default is for devices computing in host
  // memory, where steps run synchronously.
  virtual void CopyInOrder(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }

  // While the profiler is on, the plan brackets each Run with these: the step's span, labelled `label`,
  // is recorded once the step has run. The default times it on the calling thread, for devices whose
  // steps run there; a device that runs them later times them there and records them on completion.
  virtual void BeginStepSpan() { step_started_ = profiler::Clock::now(); }
  virtual void EndStepSpan(const profiler::LabelPtr& label) {
    profiler::Record({label, step_started_, profiler::Clock::now() - step_started_, profiler::ThreadNumber()});
  }

 private:
  profiler::Clock::time_point step_started_;
};

// A plan's steps as one unit, for a backend that records them once and replays the recording.
class StepSequence {
 public:
  virtual ~StepSequence() = default;
  // Runs every step on `execution`, reading and writing the buffers given (row-major inputs and
  // outputs, the workspace `arena` of arena_bytes()). Throws Error.
  virtual void RunSteps(Execution& execution, char* arena, const std::vector<const void*>& inputs,
                        const std::vector<void*>& outputs) const = 0;
  virtual size_t arena_bytes() const = 0;
  virtual const std::vector<size_t>& input_bytes() const = 0;
  virtual const std::vector<size_t>& output_bytes() const = 0;
};

// Whether a plan's steps are replayed from a recording (StepReplay), on a backend that records them.
enum class StepRecording {
  kOff,        // launched one by one
  kPreferred,  // recorded where they can be; a plan whose steps cannot be launches them one by one
  kRequired,   // as kPreferred, but a plan whose steps cannot be recorded fails its invocations (tests)
};

// Options that only some devices act on (cached-op flags naming a device's feature); other backends
// ignore them.
struct BackendOptions {
  // Whether plans replay a recording of their steps (flag cuda_graphs; Backend::NewStepReplay).
  StepRecording step_recording = StepRecording::kPreferred;
};

// Runs one plan's steps as a recording (a CUDA graph) made on first use, for a backend that can.
// Thread-safe; owned by the plan, which outlives every run it started.
class StepReplay {
 public:
  virtual ~StepReplay() = default;
  // Runs the steps on these buffers (gathered into and scattered from the recording's own) from a
  // recording and moves `done` into the completion (Execution::FinishAsync's contract): true. False,
  // with nothing started and `done` untouched, when it cannot now (every recording in use, no memory
  // for another, or steps that cannot be recorded under StepRecording::kPreferred): the caller runs
  // them as usual. Throws Error if the run failed to start, and under StepRecording::kRequired when
  // the steps cannot be recorded (naming the step and the device's error).
  virtual bool TryRun(const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs,
                      Execution::Done& done) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual DeviceType device_type() const = 0;
  // Throws Error(Status::kDevice) naming `device` when it does not exist or cannot be used.
  virtual void RequireDevice(const Device& device) const = 0;
  virtual const DeviceMemory& memory() const = 0;

  // Whether it has a kernel for the operator (a canonical name).
  virtual bool Supports(const std::string& op) const = 0;
  // Every operator it supports, sorted.
  virtual std::vector<std::string> SupportedOps() const = 0;
  virtual const FusionRules& fusions() const = 0;
  // The precision ops on `device` run when `requested` is asked for: itself, or for kAuto the fastest
  // the device runs natively. Throws Error(Status::kUnsupported) naming what the device lacks.
  virtual Precision ResolvePrecision(Precision requested, const Device& device) const = 0;

  virtual std::unique_ptr<ConstantStore> NewConstantStore() const = 0;
  // Builds the kernel of one node. Throws Error naming the node (Status::kUnsupported for what the
  // device cannot run).
  virtual KernelBuild BuildKernel(const KernelRequest& request) const = 0;
  virtual LayoutPtr PlainLayout(const TensorType& type) const = 0;
  // A kernel converting a tensor between two of this backend's layouts (same logical shape).
  virtual std::unique_ptr<Kernel> MakeConversion(const LayoutPtr& from, const LayoutPtr& to) const = 0;
  // How much compute a step doing `flops` arithmetic and moving `bytes` is worth (its `parallelism`).
  virtual int StepParallelism(double flops, double bytes) const = 0;
  // The alignment (bytes) an invocation's input or output buffer needs for the steps to read or write
  // it in place; a less aligned one (a device pointer another library handed over) is gathered into,
  // or scattered from, the plan's own buffers. The default: any address.
  virtual size_t in_place_alignment() const { return 1; }

  virtual std::unique_ptr<Execution> StartExecution(const Device& device) const = 0;
  // Whether FinishAsync returns before the work has completed (a GPU's stream): invocations then end
  // through the engine's PushAsync and hold no engine worker while the device computes.
  virtual bool completes_asynchronously() const { return false; }
  // A replay of `steps` (which outlive it) on `device`, under `recording` (never kOff), or null where
  // the backend records nothing (the default).
  virtual std::unique_ptr<StepReplay> NewStepReplay(const StepSequence& steps, const Device& device,
                                                    StepRecording recording) const {
    static_cast<void>(steps);
    static_cast<void>(device);
    static_cast<void>(recording);
    return nullptr;
  }
};

// Called once per device type, at static-initialisation time, by the backend's own code: registers the
// backend and its memory (DeviceMemoryOf, which arrays of that device allocate through) together.
void RegisterBackend(const Backend* backend);
// The backend for `device`'s type; throws NoBackendError when this build has none.
const Backend& FindBackend(const Device& device);

}  // namespace qv
