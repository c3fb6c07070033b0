// Copies over links: pinned host to device, device to pinned host, and GPU 0 to GPU 1 (peer access over
// NVLink or PCIe). Timed on the backend's stream like every case; bytes are one crossing of the link.

#include <cstring>
#include <utility>

#include "cuda_context.hpp"
#include "cuda_kernels.hpp"
#include "problems/memcpy_problem.hpp"

namespace fleetcast::engine::cuda {
namespace {

ReadRange host_reader(const Context& ctx, const PinnedBuffer& buf) {
  return [&ctx, &buf](std::size_t offset, std::size_t count) {
    CUDA_CHECK(cudaStreamSynchronize(ctx.s()));
    const auto* p = static_cast<const unsigned char*>(buf.get()) + offset;
    return std::vector<float>(p, p + count);
  };
}

// The source bytes every backend fills, made on the device and copied once into pinned memory.
PinnedBuffer filled_host(const Context& ctx, std::size_t bytes) {
  PinnedBuffer host(bytes);
  DeviceBuffer staging(bytes);
  fill_bytes(staging.get(), MemcpyProblem::kSeed, bytes, ctx.s());
  CUDA_CHECK(cudaMemcpyAsync(host.get(), staging.get(), bytes, cudaMemcpyDeviceToHost, ctx.s()));
  CUDA_CHECK(cudaStreamSynchronize(ctx.s()));
  return host;
}

class HostToDevice : public PreparedOp {
 public:
  HostToDevice(Context& ctx, const Shape& shape, std::string what)
      : ctx_(ctx),
        p_(shape),
        src_(filled_host(ctx, static_cast<std::size_t>(p_.bytes))),
        dst_(src_.bytes()),
        what_(std::move(what)) {}
  void run() override {
    CUDA_CHECK(cudaMemcpyAsync(dst_.get(), src_.get(), src_.bytes(), cudaMemcpyHostToDevice, ctx_.s()));
  }
  CheckResult check(bool full) override {
    CUDA_CHECK(cudaMemsetAsync(dst_.get(), 0, dst_.bytes(), ctx_.s()));
    run();
    return p_.check(device_byte_reader(ctx_, dst_), what_, full);
  }

 private:
  Context& ctx_;
  MemcpyProblem p_;
  PinnedBuffer src_;
  DeviceBuffer dst_;
  std::string what_;
};

class DeviceToHost : public PreparedOp {
 public:
  DeviceToHost(Context& ctx, const Shape& shape, std::string what)
      : ctx_(ctx), p_(shape), src_(static_cast<std::size_t>(p_.bytes)), dst_(src_.bytes()), what_(std::move(what)) {
    fill_bytes(src_.get(), MemcpyProblem::kSeed, src_.bytes(), ctx_.s());
  }
  void run() override {
    CUDA_CHECK(cudaMemcpyAsync(dst_.get(), src_.get(), src_.bytes(), cudaMemcpyDeviceToHost, ctx_.s()));
  }
  CheckResult check(bool full) override {
    CUDA_CHECK(cudaStreamSynchronize(ctx_.s()));
    std::memset(dst_.get(), 0, dst_.bytes());
    run();
    return p_.check(host_reader(ctx_, dst_), what_, full);
  }

 private:
  Context& ctx_;
  MemcpyProblem p_;
  DeviceBuffer src_;
  PinnedBuffer dst_;
  std::string what_;
};

// GPU `ctx.device` to GPU `peer`, enqueued on the backend's stream.
class PeerToPeer : public PreparedOp {
 public:
  PeerToPeer(Context& ctx, const Shape& shape, int peer, std::string what)
      : ctx_(ctx), p_(shape), peer_(peer), src_(static_cast<std::size_t>(p_.bytes)), what_(std::move(what)) {
    {
      ScopedDevice on_peer(peer_);
      dst_ = DeviceBuffer(src_.bytes());
    }
    // Both directions; "already enabled" from an earlier case is fine.
    for (const auto& [from, to] : {std::pair{ctx_.device, peer_}, std::pair{peer_, ctx_.device}}) {
      ScopedDevice on(from);
      const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
      } else {
        CUDA_CHECK(e);
      }
    }
    fill_bytes(src_.get(), MemcpyProblem::kSeed, src_.bytes(), ctx_.s());
  }
  void run() override {
    CUDA_CHECK(cudaMemcpyPeerAsync(dst_.get(), peer_, src_.get(), ctx_.device, src_.bytes(), ctx_.s()));
  }
  CheckResult check(bool full) override {
    {
      ScopedDevice on_peer(peer_);
      CUDA_CHECK(cudaMemset(dst_.get(), 0, dst_.bytes()));
    }
    run();
    return p_.check(device_byte_reader(ctx_, dst_), what_, full);  // unified addressing reads either GPU
  }

 private:
  Context& ctx_;
  MemcpyProblem p_;
  int peer_;
  DeviceBuffer src_, dst_;
  std::string what_;
};

}  // namespace

std::string copy_support(const Context& ctx, const std::string& op) {
  if (op != "memcpy_p2p") return "";
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count < 2)
    return "needs 2 GPUs; this machine has " + std::to_string(count) + " (CUDA_VISIBLE_DEVICES may hide some)";
  int can = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&can, ctx.device, peer_of(ctx)));
  if (can == 0)
    return "GPU " + std::to_string(ctx.device) + " cannot access GPU " + std::to_string(peer_of(ctx)) +
           "'s memory directly (no peer access): a copy would be staged through the host";
  return "";
}

int peer_of(const Context& ctx) { return ctx.device == 0 ? 1 : 0; }

std::unique_ptr<PreparedOp> make_copy(Context& ctx, const Shape& shape, const std::string& op, std::string what) {
  if (op == "memcpy_h2d") return std::make_unique<HostToDevice>(ctx, shape, std::move(what));
  if (op == "memcpy_d2h") return std::make_unique<DeviceToHost>(ctx, shape, std::move(what));
  return std::make_unique<PeerToPeer>(ctx, shape, peer_of(ctx), std::move(what));
}

}  // namespace fleetcast::engine::cuda
