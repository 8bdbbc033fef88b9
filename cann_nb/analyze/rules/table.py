"""The advisor's rules: one declarative table (id, category, thresholds, source, gain method, data
needed) pointing at one function per rule. Thresholds can be overridden per call
(``findings(profile, overrides={"small_ops": {"min_pct": 10}})``); sources are in
shared/docs/analysis-anchors.md (catalogue ids in brackets).
"""

from __future__ import annotations

from . import (arrays, autograd, broadcast_products, broadcasts, buffers, builtin_calls, call_sites, compute,
               containers, contractions, convolution, device, discarded, exact, frameworks, gradients, growth, host,
               inplace_writes, key_scans, library_loops, library_warnings, lines, linalg, log_messages, memo, memory,
               prefix,
               processes, recomputed_lines, redundant, regex, repeats, roofline, same_values, searches, selection,
               sparse,
               strided_blas, structured, sweeps, unfold_conv, waits)
from .base import METHOD_CP, METHOD_HEADROOM, Rule

US, MS = 1_000, 1_000_000

RULES: tuple[Rule, ...] = (
    # -- idle / scheduling ---------------------------------------------------------------------------
    Rule("device_idle", "idle", "Accelerator idle for a large share of the run", device.device_idle,
         {"min_pct": 10.0, "gap_ns": 50 * US},
         "[A1/A4] msprof-analyze overall (Free > 10 % of E2E), Nsight gpu_gaps / gpu_time_util, XProf idle", METHOD_CP,
         ("device",)),
    Rule("sleep_polling", "idle", "The main thread sleeping while the process is idle (polling with sleep)",
         waits.sleep_polling, {"min_pct": 5.0},
         "Python docs, concurrent.futures (wait, as_completed, Future.result block until done) and threading "
         "(Event.wait); the busy-wait / sleep-polling anti-pattern; idle = sleep time less the process's CPU "
         "time in it (host sampler)", METHOD_CP),
    Rule("expired_waits", "idle", "Blocking waits that run out their timeout while the process is idle",
         waits.expired_waits, {"min_waits": 3, "min_share": 0.8, "min_pct": 5.0},
         "Python docs, queue (get(block, timeout) raises Empty after timeout; get_nowait) and threading "
         "(Condition.wait / Event.wait return after timeout when not notified); waits woken by work vary in "
         "length, waits that all last as long ran out a timeout; idle = wait time less the process's CPU time "
         "in it (host sampler)", METHOD_CP),
    Rule("serial_awaits", "idle", "An asyncio event loop idle one awaited operation at a time",
         waits.serial_awaits, {"min_waits": 10, "min_pct": 5.0},
         "Python docs, asyncio (Awaitables: a coroutine awaited directly runs to completion before the next "
         "statement; asyncio.gather / TaskGroup run them concurrently); an event-loop iteration runs every "
         "callback that is ready, so operations in flight together wake together; idle = wait time less the "
         "process's CPU time in it (host sampler)", METHOD_CP),
    Rule("small_ops", "launch_overhead", "Many tiny ops back to back (per-element or batch-1 loops)", host.small_ops,
         {"short_ns": 30 * US, "gap_ns": 1 * MS, "min_run": 20, "roof_frac": 0.7, "min_pct": 10.0},
         "[B3] msprof op_schedule_advice (small-op storm), HTA launch stats (5-20 us launch cost); the work "
         "kept by the fix at roof_frac of the roof (as under_roof: what tuned large GEMMs reach)", METHOD_CP),
    Rule("python_loop", "host_bound", "A per-element Python loop: short lines back to back (no framework ops)",
         host.python_loop, {"short_ns": 30 * US, "max_unit_ns": 1 * MS, "gap_ns": 1 * MS, "min_run": 20,
                            "min_iterations": 200, "roof_frac": 0.7, "min_pct": 10.0},
         "[B3] as small_ops, on the Python tracer's lines: a line is short when no piece of its work (self "
         "time anywhere in its call tree) exceeds short_ns; max_unit_ns bounds a whole execution", METHOD_CP),
    Rule("tiny_ops_by_line", "launch_overhead", "A Python line calling tiny ops element by element",
         call_sites.tiny_ops_by_line, {"short_ns": 30 * US, "min_calls": 1000, "roof_frac": 0.7, "min_pct": 10.0},
         "[B3] as small_ops, by call site: sampled lines (meta call_sites) x recorded tiny ops; holds on "
         "profiles the memory budget truncated (issue 19)", METHOD_HEADROOM),
    Rule("tiny_calls_by_line", "host_bound", "A Python line calling library functions row by row (no framework ops)",
         call_sites.tiny_calls_by_line,
         {"short_ns": 30 * US, "max_piece_share": 0.25, "max_call_ns": 1 * MS, "min_calls": 1000, "min_pct": 10.0,
          "min_line_pct": 1.0, "top": 3},
         "[B3] as tiny_ops_by_line, on the Python tracer's line spans (exact call sites): calls per line and per "
         "call; a call is short when no piece of its work (self time in its call tree) exceeds short_ns",
         METHOD_CP),
    Rule("launch_bound", "launch_overhead", "Kernels shorter than their launches", device.launch_bound,
         {"min_launches": 50, "short_share": 0.2, "min_pct": 3.0},
         "[B1/B2] HTA get_cuda_kernel_launch_stats (short kernels), XProf kernel launch 3 %/15 %", METHOD_CP,
         ("device",)),
    Rule("python_gaps", "host_bound", "Python between framework ops", host.python_gaps,
         {"gap_ns": 50 * US, "min_pct": 5.0},
         "[A2/A6] XProf 'all other time' (>= 3 % moderate, >= 15 % high), HTA host_wait", METHOD_CP),
    Rule("dataloader", "input_pipeline", "Data loading on the main thread", host.dataloader,
         {"min_pct": 5.0},
         "[A6] torch-tb-profiler (DataLoader > 5 %), XProf input-bound 5 %/20 %, msprof dataloader >= 10 ms; "
         "workers load on the cores the loop's threads leave free (at least one): the loop then takes the longer "
         "of its other work and the loading shared among them",
         METHOD_CP),
    Rule("gc", "gc", "Python garbage collection", host.gc_pauses, {"min_pct": 1.0, "min_each_ns": 0, "min_full_passes": 2},
         "[A5] msprof-analyze gc_checker (pauses >= 1000 us); every pass counted here (collect/gc_pauses.py "
         "records each one): gc.freeze()/gc.disable() remove the young generations' passes too; full passes count "
         "from the second on (one may be the profiler's allocations tipping the counters)", METHOD_CP),
    Rule("compile", "compile", "Compilation in the run", host.compilation, {"min_pct": 5.0, "acl_compile_count": 20},
         "[B4] msprof-analyze operator dispatch (aclopCompileAndExecute >= 20)", METHOD_CP),
    Rule("regex_recompile", "compile", "Regular expressions compiled over and over (patterns built per call, or "
         "more than re's cache holds)", regex.regex_recompile, {"min_compiles": 100, "min_pct": 5.0},
         "Python docs, re ('the compiled versions of the most recent patterns ... are cached'; re.compile to reuse "
         "a pattern); each call of the compiler is a cache miss", METHOD_CP),
    Rule("cold_start", "cold_start", "First step much slower than the rest", host.cold_start,
         {"min_steps": 3, "ratio": 2.0, "min_pct": 5.0},
         "[I1] smdebug StepOutlier / MaxInitializationTime, Nsight *_pace", METHOD_HEADROOM, ("steps",)),
    # -- syncs ---------------------------------------------------------------------------------------
    Rule("syncs", "sync", "Blocking syncs in the loop", device.syncs, {"min_pct": 1.0},
         "[C1] Nsight cuda_api_sync, HTA critical path sync edges", METHOD_CP, ("device",)),
    Rule("launch_blocking", "sync", "Every launch followed by a sync", device.launch_blocking,
         {"min_launches": 20, "share": 0.5, "within_ns": 10 * US},
         "[C2] msprof-analyze synchronize_stream checker (P > 0.5)", METHOD_CP, ("device",)),
    Rule("syncbn", "sync", "SyncBatchNorm", device.syncbn, {"min_count": 20},
         "[C3] msprof-analyze syncbn checker (>= 20)", "", ("device",)),
    # -- transfers -----------------------------------------------------------------------------------
    Rule("pageable_copies", "transfer", "Copies from pageable memory block the host", device.pageable_copies,
         {"min_count": 1, "min_pct": 1.0}, "[D1] Nsight cuda_memcpy_async (pageable)", METHOD_CP, ("device",)),
    Rule("sync_copies", "transfer", "Synchronous copy APIs", device.sync_copies, {"min_count": 1, "min_pct": 1.0},
         "[D2] Nsight cuda_memcpy_sync / cuda_memset_sync", METHOD_CP, ("device",)),
    Rule("small_copies", "transfer", "Many small copies", device.small_copies,
         {"small_bytes": 64 * 1024, "count_share": 0.5, "min_count": 20, "min_pct": 1.0},
         "[D3] analysis-anchors D3 (< 64 KB dominate), HTA memcpy bandwidth", METHOD_CP, ("device",)),
    Rule("exposed_transfers", "transfer", "Copies not overlapped with compute", device.exposed_transfers,
         {"min_pct": 3.0}, "[D4] torch-tb-profiler step breakdown (Memcpy after Kernel), HTA temporal", METHOD_CP,
         ("device",)),
    Rule("exposed_communication", "communication", "Communication not overlapped with compute",
         device.exposed_communication, {"min_pct": 10.0},
         "[H1] torch-tb-profiler (communication > 10 %), HTA comm/comp overlap", METHOD_CP, ("device",)),
    # -- memory --------------------------------------------------------------------------------------
    Rule("alloc_churn", "memory", "Fresh tensors allocated every iteration", memory.alloc_churn,
         {"min_count": 3, "min_pct": 5.0},
         "[E2] msprof-analyze memory checker (alloc/free time), XProf allocs vs deallocs", METHOD_CP),
    Rule("large_temporaries", "memory", "Large fresh tensors allocated over and over by out-of-place ops",
         memory.large_temporaries, {"min_bytes": 1024 ** 2, "min_count": 3, "churn_ratio": 3.0, "min_pct": 5.0},
         "[E2] msprof-analyze memory checker (alloc/free), XProf allocs vs deallocs; cost per fresh byte measured "
         "on the machine (analyze/first_touch.py)", METHOD_CP, ("memory",)),
    Rule("copy_slices_backward", "memory", "Slices written in place into a tensor autograd tracks (traj[:, t] = x in a "
         "loop): each write's backward copies the whole tensor's gradient", inplace_writes.copy_slices_backward,
         {"min_nodes": 20, "min_ratio": 8.0, "min_pct": 5.0},
         "PyTorch autograd (CopySlices: an in-place op on a view; its backward clones the base's gradient); PyTorch "
         "forums 'backward gets slower the longer the rollout' (torch.stack of a list instead)", METHOD_CP),
    Rule("growing_accumulation", "memory", "An accumulator rebuilt bigger every iteration (quadratic copying)",
         growth.growing_accumulation,
         {"min_calls": 30, "min_rank_corr": 0.8, "min_slice_corr": 0.8, "min_size_growth": 4.0, "min_ratio": 1.5,
          "max_step_share": 0.65, "min_pct": 5.0},
         "PyTorch forums 'torch.cat in a loop gets slower', numpy docs (np.append copies: 'append ... is not "
         "in-place'), CPython FAQ (str.join over +=); cost fitted as a + b x size (rank correlation, a floor rising without one step)",
         METHOD_CP),
    Rule("allocator_calls", "memory", "Device allocator calls", device.allocator_calls,
         {"per_step_ns": 10 * MS, "min_pct": 3.0}, "[E2] msprof-analyze memory checker (>= 10 ms per step)",
         METHOD_CP, ("device",)),
    Rule("memory_peak", "memory", "Peak memory near capacity", memory.memory_peak, {"pct_of_capacity": 90.0},
         "[E1] torch-tb-profiler (peak > 90 % of totalGlobalMem)", "", ("memory",)),
    Rule("memory_growth", "memory", "Memory grows across steps", memory.memory_growth_rule,
         {"growth_pct": 5.0, "min_steps": 3, "min_growth_bytes": 32 * 1024 ** 2},
         "[E3] smdebug GPUMemoryIncrease (> 5 %), XProf memory_leaks; a cat/stack allocating >= half the growth "
         "gathers the kept tensors (Trainer-style evaluation keeping all logits)", METHOD_CP,
         ("memory", "steps")),
    Rule("fragmentation", "memory", "Reserved but unallocated memory", memory.fragmentation_rule,
         {"pct": 30.0, "min_reserved_bytes": 256 * 1024 ** 2}, "[E4] XProf memory_profile fragmentation", "",
         ("memory",)),
    # -- compute -------------------------------------------------------------------------------------
    Rule("float64", "precision", "float64 compute", compute.float64,
         {"min_pct": 5.0, "expected_speedup": 2.0, "transcendental_speedup": 3.0},
         "[F6] XProf 16-bit share, torch-tb-profiler AMP hint; 2x = half the bytes, twice the SIMD lanes",
         METHOD_CP, ("shapes",)),
    Rule("low_precision", "precision", "float32 matmuls without AMP", compute.low_precision,
         {"min_device_share_pct": 20.0, "expected_speedup": 2.0},
         "[F6] torch-tb-profiler (TC-eligible, TC unused), XProf (16-bit < 10 %)", METHOD_CP, ("device", "shapes")),
    Rule("elementwise_chain", "fusion", "Unfused elementwise chains", compute.elementwise_chain,
         {"min_len": 3, "min_count": 3, "min_pct": 5.0, "host_fused_share": 0.5},
         "[G2] msprof-analyze fusible operators (n-grams > 5 occurrences, > 1 % of step)", "G-seq via " + METHOD_CP),
    Rule("unfused_idiom", "fusion", "Known unfused idioms", compute.unfused_idiom,
         {"min_count": 2, "min_pct": 2.0, "host_fused_share": 0.5},
         "[G3] msprof-analyze affinity API / PATTERN_DICT", "G-seq via " + METHOD_CP),
    Rule("layout_copies", "layout", "Layout conversions", compute.layout_copies, {"min_pct": 3.0},
         "[F3] msprof-analyze affinity (permute-contiguous), TransData, cuDNN NCHW<->NHWC kernels", METHOD_CP),
    Rule("redundant_recompute", "redundant", "Constant work recomputed per iteration", compute.redundant_recompute,
         {"min_count": 3, "min_pct": 5.0}, "cann_nb (loop-invariant code motion); HTA frequent sequences",
         METHOD_CP),
    Rule("scans_per_key", "redundant", "One large tensor or array compared against key after key (a mask per key)",
         key_scans.scans_per_key, {"min_keys": 20, "min_elements": 1 << 16, "min_pct": 5.0},
         "PyTorch docs (torch.argsort stable=True, bincount, unique_consecutive, bucketize); pandas groupby docs "
         "(split once); a mask per key reads all n elements per key, grouping costs one sort, about log2(n) "
         "passes; value numbering (collect/torch_values.py) tells the same tensor from another; numpy docs "
         "(np.searchsorted); the line samples' compared arrays (collect/source_facts.py)", METHOD_CP),
    Rule("recomputed_values", "redundant", "Ops recomputed on values they already had (value numbering)",
         same_values.recomputed_values, {"min_pct": 5.0},
         "compilers' common-subexpression elimination / loop-invariant code motion (value numbering: same "
         "op on the same values computes the same result); torch.profiler's recorded inputs (allocation ids, "
         "sizes, strides, dtypes, Concrete Inputs) and allocations, collect/torch_values.py", METHOD_CP,
         ("values",)),
    Rule("recomputed_lines", "redundant", "A line recomputing the same result from unchanged inputs",
         recomputed_lines.recomputed_lines, {"min_runs": 3, "min_data_bytes": 64 * 1024, "min_pct": 5.0},
         "compilers' loop-invariant code motion (Aho et al., Compilers, 9.5): a pure computation of unchanged "
         "inputs is hoisted; the line's inputs and results fingerprinted on two runs decide "
         "(collect/line_arrays.py); 64 KiB of input data as repeated_library_calls", METHOD_CP),
    Rule("eager_log_messages", "redundant", "Log messages formatted on every call for a level that is off",
         log_messages.eager_log_messages, {"min_calls": 100, "min_pct": 3.0},
         "Python logging HOWTO, 'Optimization' (formatting of message arguments is deferred until it cannot be "
         "avoided; isEnabledFor for costly arguments); pylint logging-fstring-interpolation (W1203): a logging "
         "call that made no record (no Logger._log under it) and its line's time outside it", METHOD_CP),
    Rule("linear_search", "redundant", "A sequence scanned for a key again for every lookup (a search loop)",
         searches.linear_search, {"min_searches": 20, "min_pct": 5.0},
         "Python docs, dict and set (average O(1) lookup, Time Complexity wiki); a for loop whose body is "
         "if item_key == key: ... break (collect/loop_facts.py), nested in a loop or called per lookup", METHOD_CP),
    Rule("rebuilt_per_call", "redundant", "A layer or model constructed inside the repeated step",
         redundant.rebuilt_per_call, {"min_count": 3, "min_pct": 5.0},
         "PyTorch forums 'model re-created in forward / every call' (weights random each call); nn.Parameter "
         "births (empty -> detach) + nn.init ops on the same shapes, repeated and used in between", METHOD_CP),
    Rule("unused_gradients", "redundant", "Backward work for parameters no optimizer updates",
         autograd.unused_gradients, {"min_pct": 5.0},
         "PyTorch forums 'freezing layers does not make training faster' / docs 'Excluding subgraphs from "
         "backward' (requires_grad=False stops backward there); AccumulateGrad shapes vs the shapes the "
         "Optimizer.step ops update", METHOD_CP, ("shapes",)),
    Rule("recomputed_forward", "redundant", "Forward layers recomputed in backward (activation checkpointing)",
         autograd.recomputed_forward, {"min_pct": 5.0},
         "PyTorch docs torch.utils.checkpoint ('recomputes the forward in backward', ~one extra forward per "
         "checkpointed block); layer forward ops (conv, linear, norms) inside autograd backward nodes",
         METHOD_CP, ("shapes",)),
    Rule("repeated_backward", "redundant", "Shared layers walked by backward more than once per step",
         autograd.repeated_backward, {"min_pct": 5.0},
         "PyTorch forums 'multiple losses: backward on each or on the sum?' (retain_graph=True walks the shared "
         "graph once per call); autograd nodes named after their forward op, counted against it per "
         "Optimizer.step window", METHOD_CP),
    Rule("sort_for_topk", "redundant", "A full sort sliced to its first k elements", redundant.sort_for_topk,
         {"min_n": 64, "max_k_frac": 0.125, "min_pct": 5.0},
         "PyTorch forums 'use topk instead of sort()[:k]'; heap top-k costs n + k log2 k (ln(n/k) + 1) "
         "comparisons vs n log2 n (torch CPU topk: std::partial_sort when k * 64 <= n)", METHOD_CP),
    Rule("sum_concatenation", "redundant", "sum(list_of_lists, []): sequences concatenated one by one (quadratic)",
         containers.sum_concatenation, {"min_pct": 5.0},
         "Python docs, built-in sum ('To concatenate a series of iterables, consider using "
         "itertools.chain()'); each list addition copies both operands", METHOD_CP),
    Rule("linear_list_ops", "hotspot", "Linear-time list operations in a loop (pop(0), insert(0, x), remove, index, re-sorting)",
         containers.linear_list_ops, {"min_calls": 100, "min_ratio": 4.0, "min_pct": 5.0},
         "Python docs: list.pop(0)/insert(0) are O(n), collections.deque O(1) at both ends (TimeComplexity wiki); "
         "a call is slow against the profile's own trivial C calls (len, list.append)", METHOD_CP),
    # -- numpy/pandas work inside a line (the Python tracer's sampled arrays, collect/line_arrays.py) ------
    Rule("array_temporaries", "memory", "A line whose temporary arrays outweigh the data it reads and keeps",
         arrays.array_temporaries, {"min_bytes": 4 << 20, "min_ratio": 2.0, "min_pct": 5.0},
         "NumPy docs (broadcasting: 'can lead to inefficient use of memory'; numexpr/einsum for large "
         "intermediates); memory-bound work takes time in proportion to bytes moved (roofline); 4 MiB: beyond "
         "a core's L2, where temporaries cost DRAM traffic", METHOD_CP),
    Rule("repeated_rows", "memory", "A broadcast written out to memory (np.tile / np.repeat of a vector, "
         "x.repeat(b, 1, 1) for bmm)",
         broadcasts.repeated_copies, {"min_pct": 5.0, "min_bytes": 1 << 20},
         "NumPy docs, broadcasting ('without making needless copies of data'); np.broadcast_to returns a view; "
         "PyTorch docs, Tensor.expand ('does not allocate new memory'), Tensor.repeat ('copies the tensor's "
         "data'), torch.matmul broadcasts batch dimensions; 1 MiB: below it the copies stay in cache",
         METHOD_CP),
    Rule("materialised_selection", "redundant", "A large intermediate built in full to keep a few of its elements "
         "(all pairs then argmin, a cross join then a filter)", selection.materialised_selection,
         {"min_bytes": 32 << 20, "min_ratio": 8.0, "max_kept": 0.125, "max_width": 20, "min_pct": 5.0},
         "scipy.spatial.cKDTree / scikit-learn nearest neighbours docs (brute force is O(D N^2); trees O(D N log N), "
         "losing to brute force beyond D ~ 20); pandas docs merge_asof / IntervalIndex, groupby observed=True "
         "(only the categories that appear); the work is in proportion to the intermediate's bytes", METHOD_CP),
    Rule("sliced_result", "redundant", "A result computed whole of which the line keeps a small slice "
         "(np.corrcoef(X)[0, 1:], np.fft.fft(x)[:n // 2])", selection.sliced_result,
         {"min_bytes": 4 << 20, "max_kept": 0.6, "min_pct": 5.0},
         "NumPy docs (views keep their base alive; np.fft.rfft for real input; svd full_matrices=False); the "
         "elements of a product, an FFT or an elementwise result are computed independently: only the kept ones "
         "need computing", METHOD_CP),
    Rule("shifted_copy", "memory", "A buffer copied whole on every pass to write part of it (np.roll as a sliding "
         "window)", buffers.shifted_copy, {"min_runs": 20, "min_bytes": 64 << 10, "min_pct": 5.0},
         "NumPy docs (np.roll, np.concatenate, np.append return new arrays: 'a copy'); the ring-buffer idiom "
         "(StackOverflow 'efficient circular buffer in numpy'); 64 KiB: beyond L1, where the copy costs bandwidth",
         METHOD_CP),
    Rule("builtin_on_array", "host_bound", "A Python built-in iterating a numpy array element by element (sum(a), "
         "max(a), sorted(a))", builtin_calls.builtin_on_array, {"min_elements": 10_000, "min_pct": 5.0},
         "NumPy docs (ndarray.sum, np.sort: compiled loops; Python's built-ins iterate numpy scalars); measured "
         "here, 10^6 float64: sum(a) 118x a.sum(), max(a) 100x, sorted(a) 69x np.sort(a)", METHOD_CP),
    Rule("strided_gather", "layout", "Rows gathered from a column-major (Fortran-order) array",
         arrays.strided_gather, {"min_bytes": 1 << 20, "cache_line_bytes": 64, "min_pct": 5.0},
         "NumPy docs, memory layout (C vs Fortran order; np.ascontiguousarray); a cache line is 64 B on x86 and "
         "most Arm cores; measured here: 2,000 rows of a 300k x 64 float32 array, F order 17x C order", METHOD_CP),
    Rule("object_numbers", "host_bound", "Numbers held in object-dtype columns or arrays",
         arrays.object_numbers, {"expected_speedup": 8.0, "min_rows": 1000, "min_pct": 5.0},
         "pandas docs (object dtype holds Python objects; infer_objects, to_numeric); measured here (pandas 2, 3e5 "
         "rows, one thread): object vs float64 Series *, sum, <, clip 10-14x, groupby-sum 4.6x", METHOD_CP),
    Rule("sparse_order", "layout", "A sparse matrix sliced across its storage order in a loop",
         sparse.sparse_order, {"min_runs": 20, "short_ns": 20 * US, "min_pct": 5.0},
         "scipy.sparse docs (csr_array: 'slow column slicing operations (consider CSC)'; csc_array: 'slow row "
         "slicing operations (consider CSR)'); each slice is a pass over the arrays: one conversion does one",
         METHOD_CP),
    Rule("sparse_inserts", "redundant", "Items assigned one by one into a CSR/CSC matrix in a loop",
         sparse.sparse_inserts, {"min_runs": 20, "short_ns": 20 * US, "min_pct": 5.0},
         "scipy.sparse docs ('changing the sparsity structure of a CSR or CSC matrix is expensive', "
         "SparseEfficiencyWarning; lil/dok or COO triplets for incremental construction); each insertion shifts "
         "the arrays: one conversion does one pass", METHOD_CP),
    Rule("scan_per_key", "redundant", "A whole table masked once per key in a loop (df[df.k == key])",
         arrays.scan_per_key, {"min_runs": 20, "min_rows": 10_000, "min_pct": 5.0},
         "pandas docs, group by: split-apply-combine ('df.groupby' instead of selecting each group by a boolean "
         "mask); the work is rows x keys against rows", METHOD_CP),
    Rule("exact_statistics", "precision", "The statistics module's exact mean/stdev/variance in a hot loop (rational "
         "arithmetic per value)", exact.exact_statistics, {"expected_speedup": 10.0, "min_pct": 5.0},
         "Python docs, statistics (mean/variance computed exactly with fractions; fmean 'runs faster than mean'); "
         "measured here: mean + stdev of 200 / 1,000 floats 14x / 8.8x the same with math.fsum", METHOD_CP),
    Rule("float64_arrays", "precision", "numpy matmuls and transcendental functions in float64",
         arrays.float64_arrays, {"min_bytes": 1 << 20, "expected_speedup": 2.0, "transcendental_speedup": 2.0,
                                 "min_pct": 5.0},
         "[F6] as float64: half the bytes, twice the SIMD lanes; numpy's default dtype is float64. 2x is the "
         "width's share only: measured here in isolation (one thread) float32 was 4.7x on a 600^2 matmul, 2.9-13x "
         "on exp/log/tanh, so this is a lower bound", METHOD_CP),
    Rule("chained_copies", "redundant", "A defensive copy of what the previous step made, on every step",
         arrays.chained_copies, {"min_runs": 3, "min_bytes": 1 << 20, "min_pct": 5.0},
         "pandas docs (Copy-on-Write: 'copy() is no longer needed to avoid SettingWithCopyWarning'; indexing, "
         "views and copies); a copy costs the whole object's bytes (and a frame's block consolidation) each time",
         METHOD_CP),
    Rule("float16_arrays", "precision", "numpy matmuls and arithmetic in float16 on the CPU",
         arrays.float16_arrays, {"min_bytes": 1 << 20, "matmul_speedup": 20.0, "arithmetic_speedup": 4.0,
                                 "min_pct": 5.0},
         "NumPy docs (float16 'half precision': storage type; no BLAS routine exists for it, ufunc loops convert "
         "per element where no SIMD loop is built). Measured here (numpy 2.4, one thread, 36,000 x 128): float32 "
         "was 120x on the matmul, 7-24x on + - * and 6-13x on sum/std, 3.4x on sqrt, no faster on exp and sort; "
         "the speedups used are lower bounds of those", METHOD_CP),
    Rule("masked_updates", "memory", "Values updated through a boolean mask, indexing by it twice",
         inplace_writes.masked_updates, {"min_updates": 3, "look_back": 3, "min_pct": 5.0},
         "PyTorch docs (torch.where; indexing by a bool tensor is nonzero + advanced indexing, a host sync on CUDA: "
         "torch.nonzero 'synchronizes'); measured here (torch 2.13 CPU, one thread, 256 x 384 float32, half the "
         "mask set): h[h < 0] *= 0.01 1.69 ms, torch.where(h < 0, h * 0.01, h) 0.43 ms, h[h < 0] = 0 0.44 ms, "
         "F.leaky_relu 0.03 ms: the write less its nonzero, kept, is about a torch.where", METHOD_CP),
    Rule("strided_matmul", "layout", "A matrix product on a strided view numpy cannot give to BLAS",
         strided_blas.strided_matmul, {"min_bytes": 1 << 20, "roof_frac": 0.7, "min_pct": 5.0},
         "NumPy source (_core/src/umath/matmul.c.src, is_blasable2d: BLAS only for a matrix with one unit-stride "
         "axis, else the 'noblas' loop); measured here (numpy 2.4, one thread, 4000 x 1500 float32): X[:, ::2] @ v "
         "4.2x and X[:, ::2].T @ v ~15x a contiguous copy's, X[:, :k] @ v as fast; roof_frac as small_ops' (BLAS "
         "reaches ~70 % of the measured peak)", METHOD_CP),
    Rule("contraction_order", "redundant", "A matrix-product chain or einsum evaluated in a costly order",
         contractions.contraction_order, {"min_ratio": 2.0, "ridge_flops_per_byte": 8.0, "min_pct": 5.0},
         "NumPy docs (np.linalg.multi_dot: 'selecting the fastest evaluation order'; np.einsum optimize=False by "
         "default, np.einsum_path); the matrix-chain order problem (CLRS 15.2); work = max(FLOPs, ridge x bytes), "
         "ridge 8 FLOP/B: a core's FMA rate over its share of DRAM bandwidth (Williams et al., Roofline)", METHOD_CP),
    Rule("unfold_conv", "memory", "A convolution written as im2col and a matmul (F.unfold then @)",
         unfold_conv.unfold_conv, {"min_pct": 5.0},
         "PyTorch docs, torch.nn.Unfold (the note: 'fold(unfold(x)) ... convolution ... is equivalent to' a matmul "
         "over the unfolded blocks, which hold each input value k_h x k_w times); F.conv2d computes from the input "
         "(oneDNN/cuDNN direct or implicit-GEMM convolution)", METHOD_CP),
    Rule("svd_guard", "hotspot", "A condition number or rank computed by SVD over and over (a check per solve)",
         linalg.svd_guard, {"min_calls": 10, "min_pct": 5.0},
         "numpy docs, numpy.linalg.cond ('computed using the SVD' for p=None/2) and matrix_rank (SVD); "
         "Golub & Van Loan, Matrix Computations: SVD ~12n^3 FLOPs (singular values only ~4n^3 + bidiagonal "
         "work), LU 2n^3/3; LAPACK xGECON estimates the condition from LU factors in O(n^2); 10 calls: a "
         "check inside a loop, not a one-off", METHOD_CP),
    Rule("broadcast_contraction", "memory", "A matrix product written as a broadcast product summed over an axis",
         broadcast_products.broadcast_contraction, {"min_pct": 5.0, "min_expansion": 4.0, "roof_frac": 0.7},
         "PyTorch docs, torch.matmul / torch.einsum (a contraction without its terms stored); the terms of a "
         "broadcast product are written to memory and read back by the sum (Williams et al., Roofline: bytes, "
         "not FLOPs, bound it); an expansion of 4 x: each input value in four terms or more; roof_frac as "
         "small_ops' (BLAS reaches ~70 % of the measured peak)", METHOD_CP),
    Rule("long_kernel_conv", "hotspot", "A long-kernel convolution computed directly where the FFT needs a fraction",
         convolution.long_kernel_conv, {"min_ratio": 2.0, "fft_penalty": 4.0, "min_pct": 5.0},
         "scipy.signal.fftconvolve / oaconvolve docs ('much faster than convolve for large arrays'); "
         "torchaudio.functional.fftconvolve; real FFT ~2.5 N log2 N FLOPs (Van Loan, Computational Frameworks "
         "for the FFT); fft_penalty 4: an FFT's butterflies reach a lower share of the peak than a convolution "
         "kernel", METHOD_CP),
    Rule("symmetric_eig", "hotspot", "A general eigensolver on a symmetric matrix (eig where eigh does)",
         linalg.symmetric_eig, {"min_n": 64, "min_pct": 5.0},
         "NumPy docs, np.linalg.eigh ('for real symmetric or complex Hermitian matrices'); Golub & Van Loan, Matrix "
         "Computations 4th ed. (QR algorithm 10n^3, 25n^3 with vectors; symmetric 4n^3/3, ~9n^3 with vectors)",
         METHOD_CP),
    Rule("refactorised_matrix", "redundant", "A solve in a loop factorising the same matrix on every call",
         linalg.refactorised_matrix, {"min_runs": 3, "min_n": 32, "sparse_factor_share": 0.9, "min_pct": 5.0},
         "SciPy docs (scipy.linalg.lu_factor/lu_solve, cho_factor; scipy.sparse.linalg.splu, factorized: "
         "'factor once, solve many'); LU 2n^3/3 FLOPs against 2n^2 k for the triangular solves (Golub & Van Loan); "
         "measured here, spsolve against splu(A).solve: the factorisation was 92-99.6 % of a sparse solve (2-D "
         "Laplacians, a banded and a random sparse matrix), 0.9 is under all of them", METHOD_CP),
    Rule("inverse_product", "hotspot", "A matrix inverted to solve with it (inv(A) @ b)",
         linalg.inverse_product, {"min_n": 64, "min_pct": 5.0},
         "NumPy docs, np.linalg.solve; Higham, Accuracy and Stability of Numerical Algorithms ('inv(A) @ b ... "
         "slower and less accurate'); LU 2n^3/3 vs inverse 2n^3 FLOPs, pseudo-inverse 21n^3 (Golub-Reinsch SVD, "
         "Golub & Van Loan) + 2n^3", METHOD_CP),
    Rule("growing_prefix", "redundant", "A growing prefix recomputed at every step (decoding without a KV cache)",
         prefix.growing_prefix, {"min_calls": 8, "min_pct": 5.0},
         "Hugging Face transformers docs, KV cache ('avoid recomputing ... past tokens'; use_cache, past_key_values); "
         "the work of a step is its input rows, the new ones are the step", METHOD_CP, ("shapes",)),
    Rule("repeated_values", "redundant", "Per-element work on a column of repeated values",
         repeats.repeated_values, {"min_rows": 10_000, "max_distinct": 0.5, "min_pct": 5.0},
         "pandas docs, categorical data ('string methods ... on the categories'; memory and speed), pd.factorize; "
         "functools.lru_cache; per-element work scales with the elements it runs on", METHOD_CP),
    Rule("repeated_calls", "redundant", "A function called again with the same arguments, returning the same result",
         memo.repeated_calls, {"min_repeats": 2, "min_pct": 5.0},
         "functools docs (cache; lru_cache keeps maxsize=128 results by default: 'If maxsize is set to None, the "
         "LRU feature is disabled and the cache can grow without bound'); loop-invariant code motion (Aho et al., "
         "Compilers, 9.5); a pure call's result depends only on its arguments: fingerprints of both decide",
         METHOD_CP),
    Rule("repeated_library_calls", "redundant",
         "A library's own expensive call, inside the user's calls, redone on inputs it already had",
         memo.repeated_library_calls, {"min_repeats": 2, "min_pct": 5.0, "min_data_bytes": 64 * 1024},
         "scipy.sparse docs (LIL: 'slow matrix vector products (consider CSR or CSC)'; COO 'does not directly "
         "support arithmetic': converted on every operation); scipy.interpolate.LinearNDInterpolator (a "
         "triangulation built once, reused); pandas groupby docs (the grouping is computed per GroupBy object); "
         "a pure call's result depends only on its arguments: fingerprints of both decide; 64 KiB of argument "
         "data: below it a repeated step works on metadata (a dtype string, an option), the library's to cache",
         METHOD_CP),
    Rule("library_loop", "host_bound", "A library call running a per-element loop in interpreted Python",
         library_loops.library_loop,
         {"min_calls_per_call": 500, "short_ns": 30 * US, "max_call_ns": 1 * MS, "max_user_share": 0.5, "min_pct": 10.0,
          "top": 2},
         "[B3] as tiny_calls_by_line, inside one library call: numpy docs (genfromtxt's per-field converters vs "
         "loadtxt's C parser), pandas read_csv docs ('the C engine is faster while the python engine is currently "
         "more feature-complete'); the compiled path keeps the native work on bulk data", METHOD_CP),
    Rule("threshold_sweep", "redundant", "One tensor compared with many scalars in a loop (an ROC or histogram by one "
         "comparison per threshold)", sweeps.threshold_sweep, {"min_elements": 10_000, "min_compares": 20, "min_pct": 5.0},
         "torch.searchsorted / torch.bucketize / torch.histc docs; sklearn.metrics.roc_curve (one sort, then "
         "cumulative counts); T passes over n values against n log2 n for one sort", METHOD_CP, ("shapes",)),
    Rule("discarded_output", "redundant", "A matrix product or FFT computed in full of which a slice is kept",
         discarded.discarded_output, {"max_kept": 0.6, "min_elements": 4096, "min_pct": 5.0},
         "Hugging Face transformers generation (logits_to_keep / num_logits_to_keep: 'only the last token logits "
         "are needed for generation'); torch.fft.rfft docs (real input: the n // 2 + 1 non-redundant bins); a "
         "product's or an FFT's output elements are independent: the kept part costs its share of the work",
         METHOD_CP, ("shapes",)),
    Rule("structured_operand", "redundant", "A diagonal, identity or one-hot matrix built dense and multiplied in",
         structured.structured_operand, {"min_size": 16, "min_pct": 5.0},
         "PyTorch docs (torch.diag, F.one_hot, nn.Embedding: 'a simple lookup table'); Golub & Van Loan 1.2 "
         "(a diagonal scaling is O(n^2), not a product); the product's useful FLOPs are its operand's non-zero "
         "share", METHOD_CP, ("shapes",)),
    Rule("numeric_gradient", "redundant", "An optimiser estimating the gradient by finite differences",
         gradients.numeric_gradient, {"min_evals": 4, "min_pct": 5.0},
         "scipy.optimize.minimize docs (jac: 'If None ... the gradient will be estimated using 2-point finite "
         "difference'); Griewank & Walther, Evaluating Derivatives (2008), the cheap gradient principle: an "
         "analytic gradient costs a few evaluations (3 assumed), finite differences n + 1", METHOD_CP),
    Rule("process_per_item", "idle", "An external program started and waited for once per item",
         processes.process_per_item, {"min_launches": 20, "min_pct": 5.0},
         "Python docs (subprocess: each call creates a process, runs the program and waits for it); process "
         "creation and program start-up cost milliseconds before any work (fork/exec, dynamic loading): the "
         "fastest launch bounds that overhead", METHOD_CP),
    Rule("hotspot", "hotspot", "Dominant op", compute.hotspot, {"min_pct": 30.0, "top": 2},
         "HTA kernel breakdown, Nsight cuda_gpu_kern_sum", ""),
    Rule("library_warning", "hotspot", "A library's performance warning raised by a line that takes much of the run",
         library_warnings.library_warning, {"min_pct": 5.0},
         "pandas docs (PerformanceWarning: lexsort depth, fragmented frames), scipy.sparse SparseEfficiencyWarning; "
         "the warning names the slow path, the line's executions give its time (an upper bound of the gain)",
         METHOD_CP),
    Rule("hot_line", "hotspot", "A line of the user's code holding most of the run in the library calls it makes",
         lines.hot_line, {"min_pct": 30.0, "min_library_share": 0.5, "min_run_ns": 1_000_000, "top": 1},
         "pyinstrument and line_profiler (time per line of the user's code, with what it calls); the op-level "
         "hotspot's 30% of the run", ""),
    # -- roofline (analyze/efficiency): gains are measured time minus time at the roof ---------------
    Rule("batch_matvec", "utilization", "Matrix-vector products at batch one", roofline.batch_matvec,
         {"min_calls": 20, "min_pct": 5.0},
         "Williams et al., Roofline (CACM 2009): GEMV's intensity ~2 FLOP/element sits far left of the ridge; "
         "TraceLens per-op roofline", "roofline", ("shapes",)),
    Rule("fuse_memory_bound", "fusion", "Memory-bound elementwise chains", roofline.fuse_memory_bound,
         {"min_len": 3, "min_count": 3, "min_pct": 5.0},
         "[G2] msprof-analyze fusible operators; XProf roofline (memory-bound ops)", "roofline", ("shapes",)),
    Rule("integer_matmul", "precision", "Integer matrix products on the CPU (no BLAS kernel)", roofline.integer_matmul,
         {"roof_frac": 0.7, "min_pct": 5.0},
         "PyTorch/numpy: integer matmul falls back to non-BLAS loops (numpy issue 'int matmul slow', PyTorch forums "
         "'matmul on LongTensor is slow'); float32 exact below 2**24; roof_frac as under_roof", "roofline",
         ("shapes",)),
    Rule("half_precision_cpu", "precision", "float16/bfloat16 matrix products on a CPU without fast half-precision GEMM",
         roofline.half_precision_cpu, {"roof_frac": 0.7, "min_pct": 5.0},
         "PyTorch forums/issues ('half precision on CPU slower than float32': no native fp16 GEMM, operands "
         "converted); measured here: a 1024x256x256 mm 15x slower in float16 than float32 (torch 2.13, AMD EPYC); "
         "roof_frac as under_roof", "roofline", ("shapes",)),
    Rule("under_roof", "precision", "Compute-bound ops far under the roof", roofline.under_roof,
         {"max_frac": 0.3, "target_frac": 0.7, "min_pct": 5.0},
         "XProf roofline (op FLOP/s vs peak); tuned large GEMMs reach 70-80 % of peak (cuBLAS/CUTLASS profiles)",
         "roofline", ("shapes",)),
    # -- frameworks (issue 18): TensorFlow eager/tf.function, MindSpore PyNative/Graph ----------------
    Rule("tf_eager_ops", "launch_overhead", "TensorFlow ops run eagerly, one by one, outside tf.function",
         frameworks.tf_eager_ops, {"min_ops": 100, "min_repeats": 10, "gap_ns": 1 * MS, "min_pct": 10.0},
         "TF guide 'Better performance with tf.function' (https://www.tensorflow.org/guide/function): a graph "
         "runs the ops without per-op Python dispatch, the gain is largest for many small ops; min_pct as [B3] "
         "small-op storm", METHOD_CP),
    Rule("tf_retracing", "compile", "tf.function retraced on every call", frameworks.tf_retracing,
         {"min_traces": 5, "min_pct": 5.0},
         "TF guide 'Better performance with tf.function', Controlling retracing "
         "(https://www.tensorflow.org/guide/function#controlling_retracing); 5 traces: TensorFlow's own warning "
         "(polymorphic_function FREQUENT_TRACING_WARNING_THRESHOLD)", METHOD_CP),
    Rule("ms_pynative", "launch_overhead", "MindSpore network run op by op in PyNative mode",
         frameworks.ms_pynative, {"min_ops": 100, "gap_ns": 10 * MS, "min_pct": 10.0},
         "MindSpore docs: PyNative delivers operators one by one, Graph mode compiles the network into one graph "
         "(https://www.mindspore.cn/tutorials/en/master/beginner/accelerate_with_static_graph.html, "
         "https://www.mindspore.cn/docs/en/master/model_train/program_form/pynative.html); min_pct as [B3]",
         METHOD_CP),
    # -- Ascend --------------------------------------------------------------------------------------
    Rule("aicpu", "utilization", "AI_CPU fallback", compute.aicpu, {"min_task_ns": 20 * US, "min_pct": 1.0},
         "[F4] msprof-analyze aicpu checker (>= 20 us)", METHOD_CP, ("ascend",)),
    Rule("block_dim", "utilization", "Core under-subscription", compute.block_dim, {"min_pct": 1.0},
         "[F1] msprof-analyze block_dim checker", METHOD_HEADROOM, ("ascend",)),
    Rule("no_bound", "utilization", "No pipe saturated", compute.no_bound,
         {"min_task_ns": 20 * US, "ratio": 0.8, "min_pct": 1.0},
         "[F2] msprof-analyze operator_no_bound (> 20 us, all ratios <= 0.8)", METHOD_HEADROOM, ("ascend",)),
    Rule("dynamic_shape", "compile", "Dynamic shapes everywhere", compute.dynamic_shape, {"min_ops": 20},
         "[B5] msprof-analyze dynamic shape checker", "", ("ascend",)),
)
