#include "step_linear.hpp"

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>

#include "fp8_quant_kernels.hpp"
#include "problems/fp8_quant.hpp"

namespace fleetcast::engine::cuda {
namespace {

template <class T>
void set_attribute(const LtMatmulDesc& desc, cublasLtMatmulDescAttributes_t attr, const T& value) {
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.get(), attr, &value, sizeof value));
}

template <class T>
void set_layout_attribute(const LtLayout& layout, cublasLtMatrixLayoutAttribute_t attr, const T& value) {
  CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout.get(), attr, &value, sizeof value));
}

template <class T>
void set_preference(const LtPreference& pref, cublasLtMatmulPreferenceAttributes_t attr, const T& value) {
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), attr, &value, sizeof value));
}

LtPreference workspace_preference(const Context& ctx) {
  LtPreference pref = make_preference();
  const std::size_t workspace = ctx.lt_workspace.bytes();
  set_preference(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, workspace);
  return pref;
}

// The alignment in bytes that every matrix of a batch keeps, given a base from cudaMalloc (256-byte
// aligned) advanced by multiples of `ld` and `stride` elements of `element` bytes: the largest power of two
// dividing both byte counts, at most 256 (cuBLASLt's default assumption, which a head stride of 12 floats
// would break).
std::uint32_t alignment_bytes(std::int64_t ld, std::int64_t stride, std::int64_t element) {
  const std::int64_t bytes = std::gcd(ld, stride) * element;
  auto a = static_cast<std::uint32_t>(element);
  while (a < 256 && bytes % (2 * a) == 0) a *= 2;
  return a;
}

bool aligned(const void* p, std::uint32_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

}  // namespace

DeviceBuffer upload(const std::vector<float>& v) {
  DeviceBuffer b(v.size() * sizeof(float));
  if (!v.empty()) CUDA_CHECK(cudaMemcpy(b.get(), v.data(), b.bytes(), cudaMemcpyHostToDevice));
  return b;
}

DeviceBuffer upload(const std::vector<std::int32_t>& v) {
  DeviceBuffer b(v.size() * sizeof(std::int32_t));
  if (!v.empty()) CUDA_CHECK(cudaMemcpy(b.get(), v.data(), b.bytes(), cudaMemcpyHostToDevice));
  return b;
}

DeviceBuffer floats(std::int64_t count) { return DeviceBuffer(static_cast<std::size_t>(count) * sizeof(float)); }

DeviceBuffer upload(const std::vector<float>& v, Storage s) {
  if (s == Storage::fp32) return upload(v);
  if (s != Storage::bf16) throw std::logic_error("model_step stores fp32 or bf16");
  // The upper half of round_bf16's fp32 bits is the bf16 value: the CPU step's rounding exactly.
  std::vector<std::uint16_t> bits(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) bits[i] = static_cast<std::uint16_t>(float_bits(round_bf16(v[i])) >> 16);
  DeviceBuffer b(bits.size() * sizeof(std::uint16_t));
  if (!bits.empty()) CUDA_CHECK(cudaMemcpy(b.get(), bits.data(), b.bytes(), cudaMemcpyHostToDevice));
  return b;
}

DeviceBuffer elements(std::int64_t count, Storage s) {
  return DeviceBuffer(static_cast<std::size_t>(count) * (s == Storage::bf16 ? sizeof(std::uint16_t) : sizeof(float)));
}

StepWeight upload_weight(const std::vector<float>& w, Storage s, bool fp8, std::int64_t blocks) {
  StepWeight out;
  if (!fp8 || w.empty()) {
    out.values = upload(w, s);
    return out;
  }
  const Fp8Weights q = quantise_fp8_weights(w, blocks);
  out.values = upload_e4m3(q.values);
  out.scales = upload(q.scales);
  return out;
}

DeviceBuffer upload_e4m3(const std::vector<float>& values) {
  // The host's E4M3 values, exact in fp32, converted on the device (exactly) into one byte each.
  const DeviceBuffer staged = upload(values);
  DeviceBuffer out(values.size());
  to_fp8(staged.as<float>(), out.get(), static_cast<std::int64_t>(values.size()), nullptr);
  CUDA_CHECK(cudaStreamSynchronize(nullptr));  // before `staged` is freed; when a step is prepared, never inside
  return out;
}

DeviceBuffer upload_cache(const std::vector<float>& cache, Storage s, bool fp8) {
  if (!fp8) return upload(cache, s);
  std::vector<float> e4m3(cache.size());
  for (std::size_t i = 0; i < cache.size(); ++i) e4m3[i] = round_e4m3(cache[i] / kStepKvScale);
  return upload_e4m3(e4m3);
}

Fp8Scratch::Fp8Scratch(std::int64_t max_elements)
    : x(static_cast<std::size_t>(max_elements)), scale(sizeof(float)), absmax(sizeof(unsigned)) {}

Linear::Linear(const Context& ctx, std::int64_t m, std::int64_t n, std::int64_t k, Storage s, bool fp8)
    : m_(m), k_(k), fp8_(fp8) {
  if (s != Storage::fp32 && s != Storage::bf16) throw std::logic_error("Linear: fp32 or bf16 operands");
  if (fp8 && s != Storage::bf16) throw std::logic_error("Linear: an FP8 GEMM's input and output are bf16");
  const cudaDataType_t type = s == Storage::bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : type;
  // fp32 accumulation and fp32 alpha and beta either way (cuBLASLt's CUBLAS_COMPUTE_32F with bf16 A, B, C, D;
  // FP8 A and B with bf16 C and D, "TN" as FP8 requires).
  desc_ = make_matmul_desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
  set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  const auto mm = static_cast<std::uint64_t>(m), nn = static_cast<std::uint64_t>(n);
  const auto kk = static_cast<std::uint64_t>(k);
  a_ = make_layout(in, kk, nn, k);
  b_ = make_layout(in, kk, mm, k);
  d_ = make_layout(type, nn, mm, n);
  if (fp8) {
    // The algorithm is chosen as it will run: with A and B scale pointers set (as the gemm op's FP8 path does);
    // each call points them at that layer's and that input's scales.
    const float one = 1.0f;
    unit_scale_ = DeviceBuffer(sizeof one);
    CUDA_CHECK(cudaMemcpy(unit_scale_.get(), &one, sizeof one, cudaMemcpyHostToDevice));
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(unit_scale_.as<float>()));
    set_attribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(unit_scale_.as<float>()));
  }
  const LtPreference pref = workspace_preference(ctx);
  int found = 0;
  CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(ctx.lt.get(), desc_.get(), a_.get(), b_.get(), d_.get(), d_.get(),
                                              pref.get(), 1, &heuristic_, &found));
  if (found == 0)
    throw std::runtime_error(std::string("cuBLASLt offers no ") +
                             (fp8                  ? "fp8"
                              : s == Storage::bf16 ? "bf16"
                                                   : "fp32") +
                             " algorithm for a " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                             std::to_string(k) + " GEMM");
}

void Linear::operator()(const Context& ctx, const DeviceBuffer& x, const DeviceBuffer& w, DeviceBuffer& y) const {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(ctx.lt.get(), desc_.get(), &alpha, w.get(), a_.get(), x.get(), b_.get(), &beta, y.get(),
                              d_.get(), y.get(), d_.get(), &heuristic_.algo, ctx.lt_workspace.get(),
                              ctx.lt_workspace.bytes(), ctx.s()));
}

void Linear::operator()(const Context& ctx, const DeviceBuffer& x, const StepWeight& w, DeviceBuffer& y,
                        Fp8Scratch* scratch) const {
  if (!fp8_) {
    (*this)(ctx, x, w.values, y);
    return;
  }
  if (scratch == nullptr || scratch->x.bytes() < static_cast<std::size_t>(m_ * k_))
    throw std::logic_error("Linear: an FP8 GEMM needs a scratch for its quantised input");
  quantise_fp8({x.get(), scratch->x.get(), scratch->scale.as<float>(), scratch->absmax.as<unsigned>(), nullptr, m_, k_},
               ctx.s());
  // A is the weights (their scale), B the quantised input (its scale, written on the device just before).
  set_attribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(w.scales.as<float>()));
  set_attribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(scratch->scale.as<float>()));
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(ctx.lt.get(), desc_.get(), &alpha, w.values.get(), a_.get(), scratch->x.get(), b_.get(),
                              &beta, y.get(), d_.get(), y.get(), d_.get(), &heuristic_.algo, ctx.lt_workspace.get(),
                              ctx.lt_workspace.bytes(), ctx.s()));
}

BatchedLinear::BatchedLinear(const Context& ctx, const BatchedGemmShape& s, Storage st)
    : s_(s), element_bytes_(st == Storage::bf16 ? 2 : 4) {
  if (st != Storage::fp32 && st != Storage::bf16) throw std::logic_error("BatchedLinear: fp32 or bf16 operands");
  const cudaDataType_t type = st == Storage::bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const std::int64_t e = element_bytes_;
  desc_ = make_matmul_desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const BatchedGemmLayouts l = batched_gemm_layouts(s);
  set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, l.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N);
  set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  const LtPreference pref = workspace_preference(ctx);
  set_preference(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment_bytes(s.ld_w, s.w_stride, e));
  set_preference(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment_bytes(s.ld_x, s.x_stride, e));
  set_preference(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment_bytes(s.ld_y, s.y_stride, e));
  set_preference(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment_bytes(s.ld_y, s.y_stride, e));
  // The layouts of one matrix of the batch; `batched` adds the count and strides.
  const auto layout = [type](const LtOperand& o) {
    return make_layout(type, static_cast<std::uint64_t>(o.rows), static_cast<std::uint64_t>(o.cols), o.ld);
  };
  const auto make_layouts = [&](bool batched) {
    a_ = layout(l.a);
    b_ = layout(l.b);
    d_ = layout(l.d);
    if (!batched) return;
    const auto count = static_cast<std::int32_t>(s.batch);
    for (const LtLayout* x : {&a_, &b_, &d_}) set_layout_attribute(*x, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, count);
    set_layout_attribute(a_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, l.a.stride);
    set_layout_attribute(b_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, l.b.stride);
    set_layout_attribute(d_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, l.d.stride);
  };
  int found = 0;
  if (s.batch > 1) {
    make_layouts(true);
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(ctx.lt.get(), desc_.get(), a_.get(), b_.get(), d_.get(), d_.get(),
                                                pref.get(), 1, &heuristic_, &found));
  }
  if (found == 0) {  // one GEMM per batch entry
    looped_ = s.batch > 1;
    make_layouts(false);
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(ctx.lt.get(), desc_.get(), a_.get(), b_.get(), d_.get(), d_.get(),
                                                pref.get(), 1, &heuristic_, &found));
  }
  if (found == 0)
    throw std::runtime_error(std::string("cuBLASLt offers no ") + (st == Storage::bf16 ? "bf16" : "fp32") +
                             " algorithm for " + std::to_string(s.batch) + " GEMMs of " + std::to_string(s.m) + " x " +
                             std::to_string(s.n) + " x " + std::to_string(s.k) + " at leading dimensions " +
                             std::to_string(s.ld_w) + ", " + std::to_string(s.ld_x) + ", " + std::to_string(s.ld_y));
}

void BatchedLinear::operator()(const Context& ctx, const void* x, const void* w, void* y) const {
  const std::int64_t e = element_bytes_;
  // The alignment the algorithm was chosen for holds for every matrix only if the bases keep it.
  if (!aligned(w, alignment_bytes(s_.ld_w, s_.w_stride, e)) || !aligned(x, alignment_bytes(s_.ld_x, s_.x_stride, e)) ||
      !aligned(y, alignment_bytes(s_.ld_y, s_.y_stride, e)))
    throw std::logic_error("BatchedLinear: a base pointer is less aligned than its strides");
  const float alpha = 1.0f, beta = 0.0f;
  const std::int64_t calls = looped_ ? s_.batch : 1;
  for (std::int64_t h = 0; h < calls; ++h) {
    const void* wh = static_cast<const char*>(w) + h * s_.w_stride * e;
    const void* xh = static_cast<const char*>(x) + h * s_.x_stride * e;
    void* yh = static_cast<char*>(y) + h * s_.y_stride * e;
    CUBLAS_CHECK(cublasLtMatmul(ctx.lt.get(), desc_.get(), &alpha, wh, a_.get(), xh, b_.get(), &beta, yh, d_.get(), yh,
                                d_.get(), &heuristic_.algo, ctx.lt_workspace.get(), ctx.lt_workspace.bytes(), ctx.s()));
  }
}

}  // namespace fleetcast::engine::cuda
