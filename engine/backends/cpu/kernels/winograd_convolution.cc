#include "backends/cpu/kernels/winograd_convolution.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/kernels/vector_math.h"
#include "backends/cpu/runtime/compute_pool.h"
#include "backends/cpu/runtime/constant_cache.h"
#include "backends/cpu/runtime/cpu_precision.h"
#include "backends/cpu/runtime/thread_buffer.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

constexpr int kLanes = 16;  // channels per vector (Vec16)

// Sizes of one convolution, in tiles.
struct Geometry {
  int64_t batch, channels, height, width;  // input, channels-last
  int64_t filters, out_height, out_width;  // output, channels-last
  int64_t pad_top, pad_left;
  int64_t tiles_down, tiles_across;
  int64_t Tiles() const { return batch * tiles_down * tiles_across; }
};

// F(2x2, 3x3), interpolating at 0, 1, -1 and infinity (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016): 16 products per 4 outputs, 2.25x fewer than direct. Its
// float32 error is about twice the direct kernels' on one layer and lost in the rounding of a whole
// model. F(4x4, 3x3) would save 4x, but even at its most accurate points (0, -1, 1, 1/2, -2) one layer
// errs 10x more than direct, and a deep model's output (PSPNet's) then missed MXNet's by 2.6x MXNet's
// own float32 error, past the conformance suite's bound of 2x.
struct F2 {
  static constexpr int kOut = 2, kTile = 4;
  static constexpr double G[kTile][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  // B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 -1 0 1]
  static void InputLine(const Vec16* x, int step, Vec16* y, int ystep) {
    const Vec16 x1 = x[step], x2 = x[2 * step];
    y[0] = x[0] - x2;
    y[ystep] = x1 + x2;
    y[2 * ystep] = x2 - x1;
    y[3 * ystep] = x[3 * step] - x1;
  }
  // A^T = [1 1 1 0; 0 1 -1 1]
  static void OutputLine(const Vec16* x, int step, Vec16* y, int ystep) {
    const Vec16 x1 = x[step], x2 = x[2 * step];
    y[0] = x[0] + x1 + x2;
    y[ystep] = x1 - x2 + x[3 * step];
  }
};

// The filter transform G g G^T of each (filter, channel) pair, in double, stored as kTile^2 row-major
// channels x filters matrices (point-major), as the batched product reads them.
std::vector<float> TransformFilters(const float* weights, int64_t filters, int64_t channels) {
  constexpr int n = F2::kTile;
  std::vector<float> out(static_cast<size_t>(n * n * channels * filters));
  for (int64_t k = 0; k < filters; ++k) {
    for (int64_t c = 0; c < channels; ++c) {
      const float* g = weights + (k * channels + c) * 9;
      double gg[n][3];  // G g
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < 3; ++j) gg[i][j] = F2::G[i][0] * g[j] + F2::G[i][1] * g[3 + j] + F2::G[i][2] * g[6 + j];
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          out[static_cast<size_t>(((i * n + j) * channels + c) * filters + k)] =
              static_cast<float>(gg[i][0] * F2::G[j][0] + gg[i][1] * F2::G[j][1] + gg[i][2] * F2::G[j][2]);
    }
  }
  return out;
}

// Transforms tile `first + row`, every channel, into row `row` of `points` (16 point matrices of `block`
// tiles x channels). QV_VECTOR_FUNCTION: one body per instruction set (vector_math.h).
QV_VECTOR_FUNCTION(void, TransformInputTile, (const Geometry& g, const float* src, float* points, int64_t first,
                   int64_t row, int64_t block), (g, src, points, first, row, block)) {
  constexpr int n = F2::kTile;
  const int64_t t = first + row, per_image = g.tiles_down * g.tiles_across;
  const int64_t image = t / per_image, ty = t % per_image / g.tiles_across, tx = t % g.tiles_across;
  const int64_t y0 = ty * F2::kOut - g.pad_top, x0 = tx * F2::kOut - g.pad_left;
  const int64_t plane = block * g.channels;
  for (int64_t c = 0; c < g.channels; c += kLanes) {
    Vec16 d[n * n], cols[n * n];
    for (int i = 0; i < n; ++i) {
      const int64_t y = y0 + i;
      for (int j = 0; j < n; ++j) {
        const int64_t x = x0 + j;
        const bool inside = y >= 0 && y < g.height && x >= 0 && x < g.width;
        d[i * n + j] = inside ? LoadVec(src + ((image * g.height + y) * g.width + x) * g.channels + c) : Vec16{};
      }
    }
    for (int j = 0; j < n; ++j) F2::InputLine(d + j, n, cols + j, n);       // down the columns
    for (int i = 0; i < n; ++i) F2::InputLine(cols + i * n, 1, d + i * n, 1);  // along the rows
    float* out = points + row * g.channels + c;
    for (int p = 0; p < n * n; ++p) StoreVec(out + p * plane, d[p]);
  }
}

// Transforms row `row` of `products` (16 product matrices of `block` tiles x filters) back into the outputs
// of tile `first + row` that lie inside the map, with the bias added and the post-ops applied (a residual
// sum adds what `dst` holds).
QV_VECTOR_FUNCTION(void, TransformOutputTile, (const Geometry& g, const float* products, const float* bias,
                   const PostOp* ops, int op_count, float* dst, int64_t first, int64_t row, int64_t block), (g, products,
                   bias, ops, op_count, dst, first, row, block)) {
  constexpr int n = F2::kTile, m = F2::kOut;
  const int64_t t = first + row, per_image = g.tiles_down * g.tiles_across;
  const int64_t image = t / per_image, ty = t % per_image / g.tiles_across, tx = t % g.tiles_across;
  const int64_t plane = block * g.filters;
  const Vec16 zero{};
  for (int64_t k = 0; k < g.filters; k += kLanes) {
    Vec16 p[n * n], rows[m * n], out[m * m];
    const float* in = products + row * g.filters + k;
    for (int i = 0; i < n * n; ++i) p[i] = LoadVec(in + i * plane);
    for (int j = 0; j < n; ++j) F2::OutputLine(p + j, n, rows + j, n);        // m x n
    for (int i = 0; i < m; ++i) F2::OutputLine(rows + i * n, 1, out + i * m, 1);  // m x m
    const Vec16 b = bias ? LoadVec(bias + k) : zero;
    for (int i = 0; i < m; ++i) {
      const int64_t y = ty * m + i;
      if (y >= g.out_height) break;
      for (int j = 0; j < m; ++j) {
        const int64_t x = tx * m + j;
        if (x >= g.out_width) break;
        float* d = dst + ((image * g.out_height + y) * g.out_width + x) * g.filters + k;
        Vec16 v = out[i * m + j] + b;
        for (int o = 0; o < op_count; ++o) {
          const PostOp& op = ops[o];
          switch (op.kind) {
            case PostOp::kSum: v += LoadVec(d); break;
            case PostOp::kRelu: v = v > zero ? v : zero; break;
            case PostOp::kLeakyRelu: v = v > zero ? v : v * op.alpha; break;
            case PostOp::kClip: {
              const Vec16 lo = zero + op.alpha, hi = zero + op.beta;
              v = v < lo ? lo : v;
              v = v > hi ? hi : v;
              break;
            }
            case PostOp::kGelu: break;  // Applies leaves GELU to the direct kernel
          }
        }
        StoreVec(d, v);
      }
    }
  }
}

constexpr int kPoints = F2::kTile * F2::kTile;

// Runs the tiles in blocks, each block start to finish on one thread (transform, products, output
// transform), so that its points and products stay in that core's cache; or, where the transformed
// filters outweigh the points and products (deep layers: many channels, few tiles), as one block
// whose product all threads share, so that the filters are read once.
class WinogradKernel : public Kernel {
 public:
  WinogradKernel(const Geometry& g, int64_t block, std::shared_ptr<void> bias, std::vector<PostOp> ops,
                 std::unique_ptr<DnnlKernel> products)
      : g_(g), block_(block), bias_(std::move(bias)), ops_(std::move(ops)), products_(std::move(products)) {}

  std::string Implementation() const override {
    return "winograd F(2x2, 3x3) + " + products_->Implementation();
  }

  void Execute(const ExecArgs& args) const override {
    const int64_t tiles = g_.Tiles();
    const float* src = static_cast<const float*>(args.inputs[0]);
    float* dst = static_cast<float*>(args.outputs[0]);
    const float* bias = static_cast<const float*>(bias_.get());
    const int op_count = static_cast<int>(ops_.size());
    // The block from tile `first`, its loops and product `threads` wide, in this thread's buffers.
    const auto run_block = [&](int64_t first, int threads) {
      thread_local ThreadBuffer t_points, t_products;
      float* points = static_cast<float*>(t_points.Get(sizeof(float) * kPoints * block_ * g_.channels));
      float* products = static_cast<float*>(t_products.Get(sizeof(float) * kPoints * block_ * g_.filters));
      const int64_t count = std::min(block_, tiles - first);
      ParallelFor(threads, count, [&](int64_t t) { TransformInputTile(g_, src, points, first, t, block_); });
      // A short last block's spare rows are zeroed (whatever the buffer held could be slow denormals);
      // their products are never read.
      for (int p = 0; count < block_ && p < kPoints; ++p)
        std::memset(points + (p * block_ + count) * g_.channels, 0, sizeof(float) * (block_ - count) * g_.channels);
      products_->Execute(ExecArgs{{points}, {products}, threads});
      ParallelFor(threads, count, [&](int64_t t) {
        TransformOutputTile(g_, products, bias, ops_.data(), op_count, dst, first, t, block_);
      });
    };
    if (block_ == tiles) return run_block(0, args.threads);
    const int blocks = static_cast<int>((tiles + block_ - 1) / block_);
    ComputePool::Get().Run(args.threads, blocks, [&](int b, int) { run_block(b * block_, 1); });
  }

 private:
  const Geometry g_;
  const int64_t block_;
  const std::shared_ptr<void> bias_;
  const std::vector<PostOp> ops_;
  const std::unique_ptr<DnnlKernel> products_;
};

// Tiles per block: the block's points and products in half a megabyte (a Zen 3 core's L2 cache, a
// quarter of a Sapphire Rapids core's); all the tiles where blocks would read the transformed filters
// (once per block) more than one block moves points and products through memory (each written and
// read once).
int64_t BlockTiles(const Geometry& g) {
  constexpr int64_t kBlockBytes = 512 << 10;
  const int64_t tiles = g.Tiles();
  const int64_t block = std::max<int64_t>(8, kBlockBytes / (sizeof(float) * kPoints * (g.channels + g.filters)));
  const int64_t blocks = (tiles + block - 1) / block;
  return blocks > 1 && blocks * g.channels * g.filters < 2 * tiles * (g.channels + g.filters) ? block : tiles;
}

// Whether the convolution is one Winograd pays for (winograd_convolution.h).
bool Applies(const KernelRequest& req, const ConvolutionParams& p) {
  if (ComputeType(req.precision) != memory::data_type::f32) return false;
  if (p.kernel != std::vector<int64_t>{3, 3} || p.stride != std::vector<int64_t>{1, 1} ||
      p.dilate != std::vector<int64_t>{1, 1} || p.num_group != 1)
    return false;
  const ValueInfo& weight = req.inputs[1];
  if (!weight.constant || (!p.no_bias && !req.inputs[2].constant)) return false;
  for (const PostOp& op : p.post_ops)
    if (op.kind == PostOp::kGelu) return false;
  const Shape& in = req.inputs[0].type.shape;
  const Shape& out = req.outputs[0].shape;
  if (in[1] % kLanes != 0 || out[1] % kLanes != 0) return false;
  // Below 14x14 outputs per filter matrix (ResNet's 7x7 stage at batch 1) reading the larger filters
  // costs more than the arithmetic saved: 40% slower on AVX2, level on AVX-512.
  return out[0] * out[2] * out[3] >= 14 * 14;
}

}  // namespace

KernelBuild TryWinogradConvolution(const KernelRequest& req, const ConvolutionParams& p) {
  if (!Applies(req, p)) return {};
  const Shape& in = req.inputs[0].type.shape;
  const Shape& out = req.outputs[0].shape;
  const Geometry g{in[0], in[1], in[2], in[3], out[1], out[2], out[3], p.pad[0], p.pad[1],
                   (out[2] + F2::kOut - 1) / F2::kOut, (out[3] + F2::kOut - 1) / F2::kOut};
  const auto f32 = memory::data_type::f32;
  const auto abc = memory::format_tag::abc;
  const int64_t block = BlockTiles(g);
  // Blocks run their products on the one thread that runs the block.
  const int threads = ComputeThreads();
  if (block < g.Tiles()) SetComputeThreads(1);
  dnnl::matmul::primitive_desc pd(CpuEngine(), Desc({kPoints, block, g.channels}, f32, abc),
                                  Desc({kPoints, g.channels, g.filters}, f32, memory::format_tag::any),
                                  Desc({kPoints, block, g.filters}, f32, abc), BaseAttr());
  // oneDNN's brgemm matmul, the one this kernel's speed and its concurrency tests were measured with
  // (docs/performance.rst): on AVX2 oneDNN ranks its gemm-based matmul first for these products.
  bool brgemm = false;
  do {
    brgemm = std::string(pd.impl_info_str()).rfind("brg", 0) == 0;
  } while (!brgemm && pd.next_impl());
  SetComputeThreads(threads);
  if (!brgemm) return {};
  const Desc packed = pd.weights_desc();
  ConstantCache& constants = CpuConstants(req);
  std::shared_ptr<void> filters = constants.GetDerived(req.inputs[1].constant, packed, [&](const float* w) {
    const std::vector<float> transformed = TransformFilters(w, g.filters, g.channels);
    return ReorderConstant(transformed.data(), Desc({kPoints, g.channels, g.filters}, f32, abc), packed);
  });
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, pd.src_desc()};
  args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, std::move(filters), packed};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, pd.dst_desc()};

  std::shared_ptr<void> bias;
  if (!p.no_bias) {
    const Desc bias_desc({g.filters}, f32, memory::format_tag::a);
    bias = constants.Get(req.inputs[2].constant, bias_desc, bias_desc);
  }
  const auto nhwc = memory::format_tag::nhwc;
  const Desc src(ToDims(in), f32, nhwc), dst(ToDims(out), f32, nhwc);
  KernelBuild build;
  AddRuntimeInput(build, 0, src);
  if (p.has_sum()) build.accumulate_input = AddRuntimeInput(build, static_cast<int>(req.inputs.size()) - 1, dst);
  AddOutput(build, dst);
  build.flops = MultiplyAddFlops(out, req.inputs[1].type.shape);  // the direct algorithm's, as for every convolution
  build.kernel = std::make_unique<WinogradKernel>(g, block, std::move(bias), p.post_ops,
                                                  std::make_unique<DnnlKernel>(pd, std::move(args)));
  return build;
}

}  // namespace qv::cpu
