// The host side of a kernel: the launcher (argument checks, grid, device setup, tensor maps, the
// launch) and the C ABI functions loom_<entry> and loom_<entry>_info (docs/artifact.md).
#include "codegen/cuda_gen.h"

#include <algorithm>
#include <sstream>

namespace loom::codegen::detail {

const ir::EntrySignature& CudaGen::entry_of(const Function& f) {
  if (!f.entry) throw InternalError("codegen: the IR function has no entry signature (dependence analysis gives it one)");
  return *f.entry;
}

const ir::EntryParam& CudaGen::entry_param(ValueId p) const {
  auto at = std::find(f_.params.begin(), f_.params.end(), p);
  if (at == f_.params.end()) throw InternalError("codegen: " + pname(p) + " is not a parameter of the entry");
  return entry_.params.at(static_cast<size_t>(at - f_.params.begin()));
}

// The C parameter list of launch_<entry> (each mapping's launcher and the dispatching one), and
// the dispatcher's arguments to a mapping's launcher.
std::string CudaGen::launch_params() const {
  std::string out;
  for (ValueId p : f_.params)
    out += (f_.info(p).type == ir::Type::Tensor ? "const loom_tensor& " + pname(p) : scalar_type(p) + " " + var(p)) + ", ";
  return out + "cudaStream_t stream";
}

std::string CudaGen::launch_args() const {
  std::string out;
  for (ValueId p : f_.params) out += (f_.info(p).type == ir::Type::Tensor ? pname(p) : var(p)) + ", ";
  return out + "stream";
}

std::vector<CudaGen::TensorArg> CudaGen::tensor_args() const {
  std::vector<TensorArg> out;
  for (ValueId p : f_.params) {
    if (f_.info(p).type != ir::Type::Tensor) continue;
    const ir::ParamPrivilege priv = entry_param(p).privilege;
    out.push_back(TensorArg{pname(p), priv != ir::ParamPrivilege::Read, priv != ir::ParamPrivilege::Write});
  }
  return out;
}

// The grid as C++ lines over the entry's parameters (`have` holds them; the values defined join
// it): each block loop's trip count grid_n<i>, evaluated with the outer block indices at 0, and
// `blocks`, their product. Shared by the launcher and the cost estimate (estimate.cpp).
std::vector<std::string> CudaGen::grid_lines(std::set<ValueId>& have) {
  std::vector<std::string> out, pre;
  out.push_back("// the grid: the block loops' trip counts (inner loops' at index 0 of the outer ones)");
  for (size_t i = 0; i < grid_.size(); ++i) {
    immediates_of(i == 0 ? f_.body : grid_[i - 1]->regions[0], pre, have);
    for (auto& l : pre) out.push_back(l);
    pre.clear();
    out.push_back("const int64_t grid_n" + std::to_string(i) + " = " + var(grid_[i]->operands[0]) + ";");
    out.push_back("const int64_t " + var(grid_[i]->regions[0].args[0]) + " = 0;");
    out.push_back("(void)" + var(grid_[i]->regions[0].args[0]) + ";");
    have.insert(grid_[i]->regions[0].args[0]);
  }
  std::string blocks = "grid_n0";
  for (size_t i = 1; i < grid_.size(); ++i) blocks += " * grid_n" + std::to_string(i);
  out.push_back("const int64_t blocks = " + blocks + ";");
  return out;
}

// Dimension name -> the (tensor, dim) that defines it, from the entry signature.
std::string CudaGen::host_launcher(const std::string& kname) {
  std::ostringstream o;
  const std::string entry = entry_.task;
  if (cluster_blocks() > 1) {
    // One query for the launch (the persistent grid's size) and the cost model (its slots): the GPCs'
    // SM counts decide how many clusters fit, which can be fewer than SMs / S.
    const std::string S = std::to_string(cluster_blocks());
    o << "// " << (cluster_split() ? "splitk(" + S + ")" : mc_what()) << ": how many clusters of " << S << " blocks of this kernel run at once on `device`\n"
      << "// (cudaOccupancyMaxActiveClusters); SMs / " << S << " when the runtime cannot say, 0 when nothing is known.\n"
      << "int64_t cluster_slots(int device) {\n"
      << "  static std::atomic<int> clusters[64];\n"
      << "  if (device < 0 || device >= 64) return 0;\n"
      << "  if (clusters[device] == 0) {\n"
      << "    int count = 0, fit = 0;\n"
      << "    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {\n"
      << "      (void)cudaGetLastError();\n"
      << "      return 0;\n"
      << "    }\n"
      << "    cudaLaunchConfig_t occ = {};\n"
      << "    occ.gridDim = dim3(" << S << ");\n"
      << "    occ.blockDim = dim3(kThreads);\n"
      << "    occ.dynamicSmemBytes = kSmemBytes;\n"
      << "    cudaLaunchAttribute attr[1];\n"
      << "    attr[0].id = cudaLaunchAttributeClusterDimension;\n"
      << "    attr[0].val.clusterDim.x = " << S << ";\n"
      << "    attr[0].val.clusterDim.y = 1;\n"
      << "    attr[0].val.clusterDim.z = 1;\n"
      << "    occ.attrs = attr;\n"
      << "    occ.numAttrs = 1;\n"
      << "    if (cudaFuncSetAttribute(" << kname << ", cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess ||\n"
      << "        cudaOccupancyMaxActiveClusters(&fit, " << kname << ", &occ) != cudaSuccess || fit <= 0) {\n"
      << "      (void)cudaGetLastError();\n"
      << "      fit = count / " << S << ";\n"
      << "    }\n"
      << "    clusters[device] = fit;\n"
      << "  }\n"
      << "  return clusters[device].load();\n"
      << "}\n\n";
  }
  o << "// Checks every argument, builds the tensor maps from the run-time extents and strides, and launches.\n"
    << "int launch_" << entry << "(";
  o << launch_params() << ") {\n";
  // Argument checks.
  std::map<std::string, std::string> dim_first;
  for (ValueId p : f_.params)
    if (f_.info(p).type == ir::Type::Tensor) o << tensor_checks(p);
  for (const ir::EntryParam& prm : entry_.params) {  // a scalar has no dimensions
    for (size_t d = 0; d < prm.dims.size(); ++d) {
      const std::string here = prm.name + ".shape[" + std::to_string(d) + "]";
      auto [it, fresh] = dim_first.emplace(prm.dims[d], here);
      if (!fresh) o << "  if (" << here << " != " << it->second << ") return LOOM_ERR_SHAPE;  // " << prm.dims[d] << "\n";
    }
  }
  // A written tensor that the program cuts into blocks along a dimension but only ever takes
  // block 0 of (attention's O along D, with the head dimension a compile-time tile): elements past
  // that block would be left unwritten, so larger extents are refused.
  for (auto& [param, dim, size] : first_block_only()) {
    const ir::EntryParam& prm = entry_param(param);
    if (prm.privilege == ir::ParamPrivilege::Read) continue;
    o << "  if (" << pname(param) << ".shape[" << dim << "] > " << size << ") return LOOM_ERR_SHAPE;  // the kernel writes only the first "
      << size << " of " << prm.dims.at(static_cast<size_t>(dim)) << "\n";
  }
  // Grid.
  std::set<ValueId> have(f_.params.begin(), f_.params.end());
  for (const std::string& l : grid_lines(have)) o << "  " << l << "\n";
  // Entry tensors that start at 0 (a `w` tensor the program reduces into): cleared on the stream
  // before the kernel, even when there are no tiles (the sum over no columns is 0).
  for (const Op* fill : host_zero_fills_) {
    const ValueId p = fill->operands[0];
    const std::string P = pname(p);
    o << "  // " << names_[static_cast<size_t>(p)] << " starts at 0: the kernel's blocks add their sums into it\n"
      << "  if (blocks <= 2147483647 && " << P << ".shape[0] > 0 && cudaMemsetAsync(" << P << ".data, 0, static_cast<size_t>(" << P
      << ".shape[0]) * " << dtype_bytes(f_.info(p).dtype) << ", stream) != cudaSuccess) return LOOM_ERR_LAUNCH;\n";
  }
  o << "  if (blocks == 0) return LOOM_OK;  // an empty output: nothing to launch\n"
    << "  if (blocks > 2147483647) return LOOM_ERR_SHAPE;\n";
  // Device and shared memory.
  o << "  int device = 0;\n"
    << "  if (cudaGetDevice(&device) != cudaSuccess) return LOOM_ERR_DEVICE;\n"
    << "  // per device: 0 unknown, 1 ready, 2 unusable; and its SM count (set before `checked`)\n"
    << "  static std::atomic<int> checked[64];\n"
    << "  static std::atomic<int> sms[64];\n"
    << "  if (device < 0 || device >= 64) return LOOM_ERR_DEVICE;\n"
    << "  if (checked[device] == 0) {\n"
    << "    int major = 0, minor = 0, optin = 0;\n"
    << "    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);\n"
    << "    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);\n"
    << "    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);\n"
    << "    if (major != 9 || minor != 0) { checked[device] = 2; (void)cudaGetLastError(); return LOOM_ERR_DEVICE; }\n"
    << "    if (optin < kSmemBytes) { checked[device] = 2; return LOOM_ERR_SMEM; }\n"
    << "    if (cudaFuncSetAttribute(" << kname << ", cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess) {\n"
    << "      (void)cudaGetLastError();\n      return LOOM_ERR_LAUNCH;\n    }\n"
    << "    int count = 0;\n"
    << "    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);\n"
    << "    sms[device] = count;\n";
  o << ""
    << "    checked[device] = 1;\n"
    << "  }\n"
    << "  if (checked[device] == 2) return LOOM_ERR_DEVICE;\n";
  // Tensor maps.
  for (const TensorMap& t : maps_) {
    const std::string P = pname(t.param);
    const int rank = f_.info(t.param).rank;
    o << "  alignas(64) CUtensorMap " << t.name << ";\n  {\n"
      << "    loom::host::TensorMapSpec s;\n"
      << "    s.dtype = " << tma_dtype(t.dtype) << ";\n"
      << "    s.rank = " << rank << ";\n"
      << "    s.global_address = " << P << ".data;\n";
    const std::vector<int> order = physical_order(t.param);  // innermost first
    for (int d = 0; d < rank; ++d) {
      int rd = order[static_cast<size_t>(d)];
      o << "    s.global_dims[" << d << "] = static_cast<uint64_t>(" << P << ".shape[" << rd << "] > 0 ? " << P
        << ".shape[" << rd << "] : 1);\n";
      if (d > 0)
        o << "    s.global_strides[" << d - 1 << "] = static_cast<uint64_t>(" << P << ".stride[" << rd << "]) * "
          << dtype_bytes(t.dtype) << ";\n";
      o << "    s.box_dims[" << d << "] = " << t.box[static_cast<size_t>(rd)] << ";\n";
    }
    o << "    s.swizzle = " << swizzle_enum(t.swizzle) << ";\n"
      << "    const int st = loom::host::encode_tensor_map(&" << t.name << ", s);\n"
      << "    if (st == loom::host::kTensorMapMisalignedAddress || st == loom::host::kTensorMapStrideNotMultipleOf16) return LOOM_ERR_ALIGN;\n"
      << "    if (st != loom::host::kTensorMapOk) return LOOM_ERR_TENSOR_MAP;\n  }\n";
  }
  std::vector<std::string> args;
  for (ValueId p : f_.params) args.push_back(f_.info(p).type == ir::Type::Tensor ? pname(p) : var(p));
  for (const TensorMap& t : maps_) args.push_back(t.name);
  for (size_t i = 0; i < grid_.size(); ++i) args.push_back("grid_n" + std::to_string(i));
  // Uneven tiles (tile_order.cpp): the order the `workers` persistent blocks (or clusters) walk.
  auto tile_order = [&](const std::string& workers) {
    if (!uneven_) return;
    o << "  // the tile order: folded where that balances the blocks' shares better (tile_order.cpp)\n"
      << "  const int fold = fold_tiles(" << launch_args() << ", " << workers << ");\n";
    args.push_back("fold");
  };
  if (stream_) {
    o << stream_launch(kname, args, have);
  } else if (cluster_blocks() > 1) {
    const std::string S = std::to_string(cluster_blocks());
    if (cluster_split())
      o << "  // splitk(" << S << "): a cluster of " << S << " blocks per tile; persistent: as many clusters as run at once,\n"
        << "  // each runs tile after tile (splitk.cpp)\n"
        << "  const int64_t clusters = blocks;\n";
    else {
      o << "  // " << mc_what() << ": a cluster of " << S << " blocks per " << S << " neighbouring tiles of loop"
        << (mc_cols_ > 1 ? "s " + std::to_string(mc_grid_dim()) + " and " + std::to_string(grid_.size() - 1) : " " + std::to_string(mc_grid_dim()))
        << "; persistent: as many clusters\n"
        << "  // as run at once, each runs group after group (multicast.cpp)\n"
        << "  const int64_t clusters = " << mc_clusters_expr() << ";\n";
    }
    o << "  if (clusters > 2147483647 / " << S << ") return LOOM_ERR_SHAPE;\n"
      << "  const int64_t fit = cluster_slots(device);\n"
      << "  const int64_t grid = (fit > 0 && clusters > fit ? fit : clusters) * " << S << ";\n"
      << "  cudaLaunchConfig_t cfg = {};\n"
      << "  cfg.gridDim = dim3(static_cast<unsigned>(grid));\n"
      << "  cfg.blockDim = dim3(kThreads);\n"
      << "  cfg.dynamicSmemBytes = kSmemBytes;\n"
      << "  cfg.stream = stream;\n"
      << "  cudaLaunchAttribute attr[1];\n"
      << "  attr[0].id = cudaLaunchAttributeClusterDimension;\n"
      << "  attr[0].val.clusterDim.x = " << S << ";\n"
      << "  attr[0].val.clusterDim.y = 1;\n"
      << "  attr[0].val.clusterDim.z = 1;\n"
      << "  cfg.attrs = attr;\n"
      << "  cfg.numAttrs = 1;\n";
    tile_order("grid / " + S);  // the clusters are the persistent workers
    o << "  if (cudaLaunchKernelEx(&cfg, " << kname;
    for (const std::string& a : args) o << ", " << a;
    o << ") != cudaSuccess) {\n"
      << "    (void)cudaGetLastError();\n"
      << "    return LOOM_ERR_LAUNCH;\n"
      << "  }\n";
  } else {
    o << "  // persistent: one block per SM at most, each runs tile after tile\n"
      << "  const int64_t sm_count = sms[device].load();\n"
      << "  const int64_t grid = sm_count > 0 && blocks > sm_count ? sm_count : blocks;\n";
    tile_order("grid");
    o << "  " << kname << "<<<dim3(static_cast<unsigned>(grid)), dim3(kThreads), kSmemBytes, stream>>>(";
    for (size_t i = 0; i < args.size(); ++i) o << (i ? ", " : "") << args[i];
    o << ");\n";
  }
  o << "  if (cudaGetLastError() != cudaSuccess) return LOOM_ERR_LAUNCH;\n"
    << "  return LOOM_OK;\n}\n\n";
  return o.str();
}

// One tensor argument's checks. The TMA kernel needs every row stride and the base address to be
// multiples of 16 bytes (tensor maps, 16-byte vector stores); where they are not, it hands the call
// to its async-copy variant when there is one (else LOOM_ERR_ALIGN). The variant needs the base
// aligned to the element size only (strides are counted in elements).
std::string CudaGen::tensor_checks(ValueId p) const {
  std::ostringstream o;
  const ir::ValueInfo& vi = f_.info(p);
  const std::string P = pname(p);
  const int64_t eb = dtype_bytes(vi.dtype);
  const std::string unaligned =
      async_copy_body_.empty() ? "return LOOM_ERR_ALIGN;" : "return async_copy::launch_" + entry_.task + "(" + launch_args() + ");";
  o << "  if (" << P << ".data == nullptr) return LOOM_ERR_NULL;\n"
    << "  if (" << P << ".rank != " << vi.rank << ") return LOOM_ERR_RANK;\n"
    << "  if (" << P << ".dtype != " << abi_dtype(vi.dtype) << ") return LOOM_ERR_DTYPE;\n"
    << "  for (int d = 0; d < " << vi.rank << "; ++d) if (" << P << ".shape[d] < 0) return LOOM_ERR_SHAPE;\n";
  const bool cm = vi.rank >= 2 && param_col_major(p);
  const int contiguous = cm ? vi.rank - 2 : vi.rank - 1;
  if (cm) o << "  // column-major (layout(" << P << ": col_major)): dimension " << contiguous << " is contiguous\n";
  o << "  if (" << P << ".stride[" << contiguous << "] != 1) return LOOM_ERR_STRIDE;\n"
    << "  for (int d = 0; d < " << vi.rank << "; ++d) {\n"
    << "    if (d == " << contiguous << ") continue;\n"
    << "    if (" << P << ".stride[d] <= 0) return LOOM_ERR_STRIDE;\n";
  if (!async_copy_) o << "    if ((" << P << ".stride[d] * " << eb << ") % 16 != 0) " << unaligned << "\n";
  o << "  }\n";
  if (async_copy_)
    o << "  if (reinterpret_cast<uintptr_t>(" << P << ".data) % " << eb << " != 0) return LOOM_ERR_ALIGN;  // not even element-aligned\n";
  else
    o << "  if (reinterpret_cast<uintptr_t>(" << P << ".data) % 16 != 0) " << unaligned << "\n";
  return o.str();
}

std::string CudaGen::abi_params() const {
  std::string s;
  for (ValueId p : f_.params)
    s += (f_.info(p).type == ir::Type::Tensor ? "loom_tensor " + pname(p) : scalar_type(p) + " " + pname(p)) + ", ";
  return s + "cudaStream_t stream";
}

std::string CudaGen::abi_signature() { return "int loom_" + entry_.task + "(" + abi_params() + ")"; }

std::string CudaGen::abi_functions(int64_t smem_bytes, int64_t threads, int mappings) {
  std::ostringstream o;
  const std::string entry = entry_.task;
  const std::string params = abi_params();
  std::string args;
  for (ValueId p : f_.params) args += pname(p) + ", ";
  args += "stream";
  // A one-mapping program's _pick, _tune and _estimates read none of their arguments.
  std::string unused;
  for (ValueId p : f_.params) unused += "  (void)" + pname(p) + ";\n";
  unused += "  (void)stream;\n";
  o << "extern \"C\" " << abi_signature() << " {\n  return launch_" << entry << "(" << args << ");\n}\n\n";
  // One mapping chosen by the caller (tuning; pinning one summation order), the launcher's choice, the count.
  o << "extern \"C\" int loom_" << entry << "_mapping(int mapping, " << params << ") {\n";
  if (mappings > 1)
    o << "  return launch_" << entry << "_mapping(mapping, " << args << ");\n";
  else
    o << "  if (mapping != 0) return LOOM_ERR_MAPPING;\n  return launch_" << entry << "(" << args << ");\n";
  o << "}\n\n"
    << "extern \"C\" int loom_" << entry << "_pick(" << params << ") {\n";
  if (mappings > 1)
    o << "  return pick_" << entry << "(" << args << ");\n";
  else
    o << unused << "  return 0;\n";
  o << "}\n\n"
    << "extern \"C\" int loom_" << entry << "_tune(" << params << ") {\n";
  if (mappings > 1)
    o << "  return tune_" << entry << "(" << args << ");\n";
  else
    o << unused << "  return LOOM_OK;  // one mapping: nothing to choose\n";
  o << "}\n\n"
    << "extern \"C\" int loom_" << entry << "_estimates(double* cycles, " << params << ") {\n";
  if (mappings > 1)
    o << "  if (cycles)\n    for (int i = 0; i < " << mappings << "; ++i) cycles[i] = 0.0;\n"
      << "  return rule_pick_" << entry << "(" << args << ", cycles);\n";
  else
    o << unused << "  if (cycles) cycles[0] = 0.0;  // one mapping: nothing weighed\n  return 0;\n";
  o << "}\n\n"
    << "extern \"C\" int loom_" << entry << "_mappings(void) { return " << mappings << "; }\n\n";
  o << "extern \"C\" const loom_kernel_info* loom_" << entry << "_info(void) {\n"
    << "  static const loom_arg_info args[] = {\n";
  for (size_t i = 0; i < f_.params.size(); ++i) {
    const ir::EntryParam& prm = entry_.params[i];
    const ir::ValueInfo& vi = f_.info(f_.params[i]);
    if (vi.type != ir::Type::Tensor) {
      o << "      {\"" << prm.name << "\", LOOM_ARG_SCALAR, " << (scalar_type(f_.params[i]) == "float" ? "LOOM_F32" : "LOOM_I64")
        << ", 0, {nullptr}, 0, LOOM_PRIV_NONE},\n";
      continue;
    }
    o << "      {\"" << prm.name << "\", LOOM_ARG_TENSOR, " << abi_dtype(vi.dtype) << ", " << vi.rank << ", {";
    for (size_t d = 0; d < 5; ++d) o << (d ? ", " : "") << (d < prm.dims.size() ? "\"" + prm.dims[d] + "\"" : "nullptr");
    const char* priv = prm.privilege == ir::ParamPrivilege::Read    ? "LOOM_PRIV_R"
                       : prm.privilege == ir::ParamPrivilege::Write ? "LOOM_PRIV_W"
                                                                    : "LOOM_PRIV_RW";
    // The alignment a call needs: 16 bytes with TMA alone, the element size with the async-copy variant.
    o << "}, " << (async_copy_body_.empty() ? int64_t{16} : dtype_bytes(vi.dtype)) << ", " << priv << "},\n";
  }
  o << "  };\n"
    << "  static const loom_kernel_info info = {\"" << entry << "\", " << entry_.params.size() << ", args, " << smem_bytes
    << ", " << threads << "};\n"
    << "  return &info;\n}\n";
  return o.str();
}

}  // namespace loom::codegen::detail

namespace loom::codegen::detail {

// (parameter, dimension, block size) for every `blocks` piece of a tensor parameter (through
// slices) whose index along a dimension is the constant 0 and whose block size there is a
// constant: the program touches only the first block of that dimension.
std::vector<std::tuple<ValueId, int, int64_t>> CudaGen::first_block_only() const {
  std::vector<std::tuple<ValueId, int, int64_t>> out;
  auto konst = [&](ValueId v) -> std::optional<int64_t> {
    auto d = def_.find(v);
    if (d == def_.end() || d->second->kind != OpKind::Const) return std::nullopt;
    return d->second->ival;
  };
  std::set<std::pair<ValueId, int>> seen;
  auto visit = [&](const ir::Block& b, auto&& self) -> void {
    for (const Op& op : b.ops) {
      for (const ir::Block& r : op.regions) self(r, self);
      if (op.kind != OpKind::Piece || op.part.kind != PartitionSpec::Kind::Blocks) continue;
      for (size_t d = 0; d < op.part.block.size(); ++d) {
        auto idx = konst(op.operands[d + 1]);
        auto size = op.part.block[d] == kNone ? std::nullopt : konst(op.part.block[d]);
        if (!idx || *idx != 0 || !size) continue;
        // Walk to the root through slices; stop at anything else (an alloc, a clipped block).
        ValueId v = op.operands[0];
        int dim = static_cast<int>(d);
        bool param = false;
        for (;;) {
          auto p = def_.find(v);
          if (p == def_.end()) {
            param = std::find(f_.params.begin(), f_.params.end(), v) != f_.params.end();
            break;
          }
          if (p->second->kind != OpKind::Piece || p->second->part.kind != PartitionSpec::Kind::Slices) break;
          if (dim >= p->second->part.dim) ++dim;
          v = p->second->operands[0];
        }
        if (param && seen.insert({v, dim}).second) out.emplace_back(v, dim, *size);
      }
    }
  };
  visit(f_.body, visit);
  return out;
}

}  // namespace loom::codegen::detail
