// The CUDA backend's shared helpers (fills, read-back) and its RMSNorm, SwiGLU and copy cases.

#include <cstring>

#include "cuda_context.hpp"
#include "cuda_kernels.hpp"
#include "problems/memcpy_problem.hpp"
#include "problems/rowwise_problems.hpp"

namespace fleetcast::engine::cuda {

double storage_bytes(Storage s) { return s == Storage::fp32 ? 4.0 : s == Storage::bf16 ? 2.0 : 1.0; }

DeviceBuffer make_filled(const Context& ctx, const TensorInit& t, Storage s) {
  DeviceBuffer buf(static_cast<std::size_t>(static_cast<double>(t.count) * storage_bytes(s)));
  fill(buf.get(), s, t.seed, t.count, t.amplitude, t.offset, ctx.s());
  return buf;
}

ReadRange device_reader(const Context& ctx, const DeviceBuffer& buf, Storage s) {
  return [&ctx, &buf, s](std::size_t offset, std::size_t count) {
    CUDA_CHECK(cudaStreamSynchronize(ctx.s()));
    std::vector<float> out(count);
    if (s == Storage::fp32) {
      CUDA_CHECK(cudaMemcpy(out.data(), buf.as<float>() + offset, count * 4, cudaMemcpyDeviceToHost));
    } else {
      // bf16 is the top half of an fp32: widen on the host rather than launch a conversion.
      std::vector<std::uint16_t> raw(count);
      CUDA_CHECK(cudaMemcpy(raw.data(), buf.as<std::uint16_t>() + offset, count * 2, cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < count; ++i) out[i] = bits_float(std::uint32_t{raw[i]} << 16);
    }
    return out;
  };
}

ReadRange device_byte_reader(const Context& ctx, const DeviceBuffer& buf) {
  return [&ctx, &buf](std::size_t offset, std::size_t count) {
    CUDA_CHECK(cudaStreamSynchronize(ctx.s()));
    std::vector<unsigned char> raw(count);
    CUDA_CHECK(cudaMemcpy(raw.data(), buf.as<unsigned char>() + offset, count, cudaMemcpyDeviceToHost));
    return std::vector<float>(raw.begin(), raw.end());
  };
}

namespace {

// Before a check, outputs are set to all-ones bits (NaN in fp32 and bf16), so a kernel that writes
// nothing cannot pass on what an earlier case left behind.
void poison(const Context& ctx, const DeviceBuffer& buf) {
  CUDA_CHECK(cudaMemsetAsync(buf.get(), 0xff, buf.bytes(), ctx.s()));
}

double tolerance(Storage s) { return tolerance_for(s == Storage::bf16 ? "bf16" : "fp32"); }

class RmsNorm : public PreparedOp {
public:
  RmsNorm(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx), p_(shape, s), x_(make_filled(ctx, p_.x, s)), w_(make_filled(ctx, p_.weight, s)),
        y_(x_.bytes()), what_(std::move(what)) {}
  void run() override {
    rmsnorm(x_.get(), w_.get(), y_.get(), p_.tokens, p_.hidden, static_cast<float>(RmsNormProblem::kEps), p_.storage,
            ctx_.s());
  }
  CheckResult check(bool full) override {
    poison(ctx_, y_);
    run();
    return p_.check(device_reader(ctx_, y_, p_.storage), what_, tolerance(p_.storage), full);
  }

private:
  Context& ctx_;
  RmsNormProblem p_;
  DeviceBuffer x_, w_, y_;
  std::string what_;
};

class Swiglu : public PreparedOp {
public:
  Swiglu(Context& ctx, const Shape& shape, Storage s, std::string what)
      : ctx_(ctx), p_(shape, s), in_(make_filled(ctx, p_.gate_up, s)), y_(in_.bytes() / 2), what_(std::move(what)) {}
  void run() override { swiglu(in_.get(), y_.get(), p_.tokens, p_.width, p_.storage, ctx_.s()); }
  CheckResult check(bool full) override {
    poison(ctx_, y_);
    run();
    return p_.check(device_reader(ctx_, y_, p_.storage), what_, tolerance(p_.storage), full);
  }

private:
  Context& ctx_;
  SwigluProblem p_;
  DeviceBuffer in_, y_;
  std::string what_;
};

class Memcpy : public PreparedOp {
public:
  Memcpy(Context& ctx, const Shape& shape, std::string what)
      : ctx_(ctx), p_(shape), src_(static_cast<std::size_t>(p_.bytes)), dst_(static_cast<std::size_t>(p_.bytes)),
        what_(std::move(what)) {
    fill_bytes(src_.get(), MemcpyProblem::kSeed, src_.bytes(), ctx_.s());
  }
  void run() override {
    CUDA_CHECK(cudaMemcpyAsync(dst_.get(), src_.get(), src_.bytes(), cudaMemcpyDeviceToDevice, ctx_.s()));
  }
  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(dst_.get(), 0, dst_.bytes(), ctx_.s()));
    run();
    return p_.check(device_byte_reader(ctx_, dst_), what_, full);
  }

private:
  Context& ctx_;
  MemcpyProblem p_;
  DeviceBuffer src_, dst_;
  std::string what_;
};

}  // namespace

std::unique_ptr<PreparedOp> make_rmsnorm(Context& ctx, const Shape& shape, Storage s, std::string what) {
  return std::make_unique<RmsNorm>(ctx, shape, s, std::move(what));
}

std::unique_ptr<PreparedOp> make_swiglu(Context& ctx, const Shape& shape, Storage s, std::string what) {
  return std::make_unique<Swiglu>(ctx, shape, s, std::move(what));
}

std::unique_ptr<PreparedOp> make_memcpy(Context& ctx, const Shape& shape, std::string what) {
  return std::make_unique<Memcpy>(ctx, shape, std::move(what));
}

}  // namespace fleetcast::engine::cuda
