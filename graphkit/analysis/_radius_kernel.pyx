# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The whole array blast radius in one compiled call (see :mod:`graphkit.analysis.kernel`, its wrapper).

One :class:`Kernel` per traversal snapshot holds the snapshot's pairs packed one 64-bit record each (target,
has/runs-code flags, and per variant: certain, lifetime code, rank of the lasting seconds), the explanation arcs
and node weights, per-node scratch arrays (local index, code mark, visit buffer: handed back clean after every
query, only the entries touched being reset) and work buffers sized by the largest reach so far: a query costs
O(its reached pairs), never O(n).  :meth:`Kernel.radius` replays, step for step, the scipy path of
:func:`graphkit.analysis.radius_arrays.radius_arrays` (:func:`graphkit.analysis.cbfs.reach`, :func:`~graphkit.
analysis.radius_arrays.local_csr`, :func:`graphkit.analysis.cbfs.bfs` twice, :func:`graphkit.analysis.cbfs.
widths`) as sequential FIFO loops; either BFS is read off the reach's own search when it provably equals it
(:meth:`Kernel._reach`), which is the common case.  The local CSR of the reached pairs is not written out: every
pass reads the reached rows' packed records in place, each row in its node's variant: a node running the
attacker's code reads its whole row, any other only its variant-0 pairs, kept apart (``packed0``: it never reads a
pair of ``source_only`` edges alone), with its row's start and first record side by side (``node0``: most rows
hold one pair, so one memory line).  The scans of those rows read 4 bytes a pair where they can (``target0``:
the targets; the reach reads the records of a row only when one of its pairs runs code or is uncertain, the widths
read a pair's attributes, ``attr0``, only when its target has no width yet), and a node no pair leaves (a sink:
about half the reached nodes) is never queued for a scan of its row.  Nodes whose variant-0 rows are equal record
for record (twins: OIDC identities trusted by the same roles, caches restored into the same jobs; ``_twin_classes``)
share a class id kept beside their row's start: each search scans one row per class and skips the others, whose
scan would find every target as the first one left it (about half the reached pairs in the synthetic org of 10^6
edges).  The searches over the reached rows use local indexes (the reach, the BFS trees); the widths use global
ones (a byte per node: the rank of the width), so no target goes through the local index there.  The trees hold
the pair index of each node's entering pair; its explanation arc is gathered when a path is asked for
(:meth:`Kernel.arcs`).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcpy

import numpy as np

#: the interface graphkit.analysis.kernel was written against: it uses this module only when equal (a module
#: built from an older source, e.g. an editable install after a pull that changed this file, is not used)
API = 5

# a packed pair: bits 0-31 target, 32 has (variant 0), 33 has (variant 1), 34 runs code, then per variant v
# 13 bits at ATTR + 13 v: certain (1), lifetime code (4), rank of the lasting seconds (8)
cdef extern from *:
    """
    #define GK_HAS0 (((uint64_t)1) << 32)
    #define GK_HAS1 (((uint64_t)1) << 33)
    #define GK_RUNS (((uint64_t)1) << 34)
    #define GK_ATTR 35
    #define GK_ATTR_MASK ((uint64_t)0x1FFF)
    #define GK_TARGET_MASK ((uint64_t)0xFFFFFFFF)
    #define GK_NO_WIDTH ((uint8_t)0xFF)
    #define GK_CERT0 (((uint64_t)1) << 35)
    #define GK_SINK (((uint64_t)1) << 61)
    #define GK_SLOW (((uint64_t)1) << 63)
    #define GK_START_MASK ((((uint64_t)1) << 40) - 1)
    #define GK_PBIT ((int32_t)1 << 30)
    #define GK_LOC_MASK ((int32_t)0x3FFFFFFF)
    #define GK_TWIN_SHIFT 40
    #define GK_TWIN_MASK ((uint64_t)0x7FFFFF)
    #if defined(__GNUC__) || defined(__clang__)
    #define GK_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define GK_PREFETCH(p) ((void)0)
    #endif
    """
    const uint64_t HAS0 "GK_HAS0"
    const uint64_t HAS1 "GK_HAS1"
    const uint64_t RUNS "GK_RUNS"
    const int ATTR "GK_ATTR"
    const uint64_t ATTR_MASK "GK_ATTR_MASK"
    const uint64_t TARGET_MASK "GK_TARGET_MASK"
    const uint8_t NO_WIDTH "GK_NO_WIDTH"
    const uint64_t CERT0 "GK_CERT0"
    const uint64_t SINK "GK_SINK"
    const uint64_t SLOW "GK_SLOW"
    const uint64_t START_MASK "GK_START_MASK"
    const int32_t PBIT "GK_PBIT"
    const int32_t LOC_MASK "GK_LOC_MASK"
    const int TWIN_SHIFT "GK_TWIN_SHIFT"
    const uint64_t TWIN_MASK "GK_TWIN_MASK"
    void prefetch "GK_PREFETCH"(const void* p) noexcept nogil


#: the shortest variant-0 row given a twin class (:func:`_twin_classes`): a shorter row costs less to scan than
#: to look its class up
TWIN_MIN = 4
#: what a query keeps per twin class (``Scratch.tw``): a row of the class was scanned by the reach's current search,
#: a certain pair of that row enters a node whose tree path has an uncertain arc (the reach's P), a row of the class
#: was scanned by the widths, by the certain-only BFS, by the BFS over every pair
cdef enum:
    TW_REACH = 1
    TW_BAD = 2
    TW_WIDTHS = 4
    TW_CBFS = 8
    TW_ABFS = 16


cdef int _cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0]
    cdef int64_t y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef int _sort_ids(int64_t* data, Py_ssize_t m) except -1:
    """Sort ``data[:m]`` (node indexes, 0 <= x < 2**31) increasingly: LSD radix sort, 8 bits a pass (qsort's
    comparison callback cost a tenth of a blast radius with a few thousand copies)."""
    cdef Py_ssize_t i
    cdef Py_ssize_t count[257]
    cdef int shift = 0, d
    cdef int64_t top = 0
    cdef int64_t* src = data
    cdef int64_t* dst
    cdef int64_t* swap
    if m < 2:
        return 0
    cdef int64_t* tmp = <int64_t*>malloc(m * sizeof(int64_t))
    if tmp == NULL:
        raise MemoryError()
    dst = tmp
    for i in range(m):
        top |= data[i]
    while shift < 32 and (top >> shift):
        for d in range(257):
            count[d] = 0
        for i in range(m):
            count[((src[i] >> shift) & 0xFF) + 1] += 1
        for d in range(256):
            count[d + 1] += count[d]
        for i in range(m):
            d = <int>((src[i] >> shift) & 0xFF)
            dst[count[d]] = src[i]
            count[d] += 1
        swap = src
        src = dst
        dst = swap
        shift += 8
    if src != data:
        memcpy(data, src, m * sizeof(int64_t))
    free(tmp)
    return 0


def _node_attr(weight, copy):
    """(n,) int32: every node's weight (bits 16-30) and copy column (bits 0-15, the int16 as is), read at once by
    the widths pass.  Raises ValueError for a weight outside 0..32767."""
    weight = np.asarray(weight, dtype=np.int64)
    if weight.size and (weight.min() < 0 or weight.max() >= 2 ** 15):
        raise ValueError("node weights outside 0..32767")
    return np.ascontiguousarray((weight << 16) | (np.asarray(copy, dtype=np.int64) & 0xFFFF), dtype=np.int32)


def _variant0_scan(node0, packed0):
    """What the scans of the variant-0 rows read besides the records (:class:`Kernel`): ``(node0, target0, attr0)``.

    ``node0`` (2 n + 2,) uint64: a copy of the given one with bit 63 of each row's start set when a record of the
    row runs code or is uncertain (the reach then reads its records; else only their targets); ``target0`` (p0 + 1,)
    uint32: every record's target (bits 0-30) and sink bit (31); ``attr0`` (p0 + 1,) uint16: its variant-0
    attributes (certain, lifetime code, rank: the record's bits 35-47).  O(n + p0) in numpy, once per kernel.
    """
    packed0 = np.asarray(packed0, dtype=np.uint64)
    p0 = packed0.shape[0] - 1
    rec = packed0[:p0]
    odd = ((rec & np.uint64(1 << 34)) != 0) | ((rec & np.uint64(1 << 35)) == 0)  # runs code, or not certain
    before = np.zeros(p0 + 1, dtype=np.int64)
    np.cumsum(odd, out=before[1:])
    nd = np.array(node0, dtype=np.uint64)
    start = nd[0::2].astype(np.int64)
    n = start.shape[0] - 1
    nd[0:2 * n:2] |= (before[start[1:]] > before[start[:n]]).astype(np.uint64) << np.uint64(63)
    target0 = ((packed0 & np.uint64(0x7FFFFFFF)) | ((packed0 >> np.uint64(30)) & np.uint64(1 << 31))).astype(np.uint32)
    attr0 = ((packed0 >> np.uint64(35)) & np.uint64(0x1FFF)).astype(np.uint16)
    return nd, np.ascontiguousarray(target0), np.ascontiguousarray(attr0)


def _twin_classes(node0, packed0, Py_ssize_t min_len=TWIN_MIN):
    """Twin classes of the variant-0 rows: ``(classes, k)``, ``classes`` (n,) uint64 the class of every node (1..k),
    or 0 for a node whose variant-0 row holds fewer than ``min_len`` records or is the only one with its records.
    Two nodes of one class have the same variant-0 records, record for record (the same targets, flags and
    attributes, in the same order), so once a search has scanned one of them, a scan of another finds every target
    as the first one left it: :class:`Kernel` scans one row per class and search (the others are skipped), the
    class id kept in bits 40-62 of the row's start (``k`` < 2**23: later classes get none).  ``node0`` (2 n + 2,)
    uint64 and ``packed0`` (p0 + 1,) uint64 as :class:`Kernel` takes them.  Time O(n log n + p0) once per kernel
    (a hash of every row, a sort, the rows of equal hash compared record for record)."""
    cdef const uint64_t[::1] nd = np.ascontiguousarray(node0, dtype=np.uint64)
    cdef const uint64_t[::1] pk = np.ascontiguousarray(packed0, dtype=np.uint64)
    cdef Py_ssize_t n = (nd.shape[0] - 2) // 2, i, j, a, b, m, length, lo = 0, hi
    cdef uint64_t x, k = 0
    starts = (np.asarray(nd)[0::2] & np.uint64((1 << 40) - 1)).astype(np.int64)
    cand_a = np.flatnonzero(np.diff(starts) >= max(min_len, 1)).astype(np.int64)
    cdef const int64_t[::1] cand = cand_a
    cdef const int64_t[::1] st = starts
    hash_a = np.empty(cand.shape[0], dtype=np.uint64)
    cdef uint64_t[::1] hashes = hash_a
    for i in range(cand.shape[0]):
        a, b = st[cand[i]], st[cand[i] + 1]
        x = <uint64_t>0xcbf29ce484222325 ^ <uint64_t>(b - a)
        for j in range(a, b):
            x = (x ^ pk[j]) * <uint64_t>0x9E3779B97F4A7C15
            x ^= x >> 29
        hashes[i] = x
    perm_a = np.lexsort((cand_a, hash_a)).astype(np.int64)
    cdef const int64_t[::1] perm = perm_a
    classes_a = np.zeros(n, dtype=np.uint64)
    cdef uint64_t[::1] classes = classes_a
    while lo < perm.shape[0]:  # a run of rows of one hash, grouped by their records (a collision: several groups)
        hi = lo + 1
        while hi < perm.shape[0] and hashes[perm[hi]] == hashes[perm[lo]]:
            hi += 1
        groups = []  # the members of every distinct row of the run, the first one first
        for i in range(lo, hi):
            a = cand[perm[i]]
            length = st[a + 1] - st[a]
            for group in groups:
                b = group[0]
                if st[b + 1] - st[b] == length:
                    m = 0
                    while m < length and pk[st[a] + m] == pk[st[b] + m]:
                        m += 1
                    if m == length:
                        group.append(a)
                        break
            else:
                groups.append([a])
        for group in groups:
            if len(group) > 1 and k < TWIN_MASK:
                k += 1
                for a in group:
                    classes[a] = k
        lo = hi
    return classes_a, int(k)


cdef struct Buf:
    int64_t* data
    Py_ssize_t size
    Py_ssize_t cap


cdef int buf_reserve(Buf* b, Py_ssize_t need) except -1:
    cdef int64_t* grown
    cdef Py_ssize_t cap
    if need > b.cap:
        cap = max(need, b.cap * 2 + 64)
        grown = <int64_t*>realloc(b.data, cap * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError()
        b.data = grown
        b.cap = cap
    return 0


cdef inline int buf_push(Buf* b, int64_t x) except -1:
    if b.size == b.cap:
        buf_reserve(b, b.size + 1)
    b.data[b.size] = x
    b.size += 1
    return 0


cdef struct Bytes:
    uint8_t* data
    Py_ssize_t cap


cdef int bytes_reserve(Bytes* b, Py_ssize_t need) except -1:
    cdef uint8_t* grown
    cdef Py_ssize_t cap
    if need > b.cap:
        cap = max(need, b.cap * 2 + 64)
        grown = <uint8_t*>realloc(b.data, cap)
        if grown == NULL:
            raise MemoryError()
        b.data = grown
        b.cap = cap
    return 0


cdef struct Work:
    # a FIFO queue of local nodes; per local node: the arc index (variant * p + pair) entering it in the tree
    # being built; seeds, fresh code nodes, code nodes, pending pairs of the widths (local target | lifetime code
    # << 32 | rank << 36); the
    # reach's own tree (parent, arc index per local node) and whether it is the BFS tree over every pair of each
    # row's variant (``simple``: no code node has a variant-1-only pair), and whether every such pair's explanation
    # edge is certain (``all_certain``: then that tree is the certain-only one too); per local node whether its
    # tree path has an uncertain arc (``pset``), and whether no certain arc leaves a node without one into a node
    # with one (``certain_tree``: then the certain-only BFS tree is the reach's tree on the nodes without one)
    Buf queue
    Buf kidx
    Buf seeds
    Buf fresh
    Buf codes
    Buf pending
    Buf apar
    Buf akidx
    Bytes pset
    Buf twins
    int simple
    int all_certain
    int certain_tree


cdef void work_init(Work* w) noexcept:
    w.queue = Buf(NULL, 0, 0)
    w.kidx = Buf(NULL, 0, 0)
    w.seeds = Buf(NULL, 0, 0)
    w.fresh = Buf(NULL, 0, 0)
    w.codes = Buf(NULL, 0, 0)
    w.pending = Buf(NULL, 0, 0)
    w.apar = Buf(NULL, 0, 0)
    w.akidx = Buf(NULL, 0, 0)
    w.pset = Bytes(NULL, 0)
    w.twins = Buf(NULL, 0, 0)
    w.simple = 1
    w.all_certain = 1
    w.certain_tree = 1


cdef void work_free(Work* w) noexcept:
    free(w.queue.data)
    free(w.kidx.data)
    free(w.seeds.data)
    free(w.fresh.data)
    free(w.codes.data)
    free(w.pending.data)
    free(w.apar.data)
    free(w.akidx.data)
    free(w.pset.data)
    free(w.twins.data)


cdef struct Scratch:
    # the per-node scratch of one query: local index (-1 outside), code mark (0), visit buffer (global indexes),
    # rank of the width (NO_WIDTH: none yet) and its lifetime code (no fill: written with the rank); per twin class
    # (:func:`_twin_classes`) the TW_* bits of the searches that scanned a row of it (0)
    int32_t* loc
    uint8_t* cd
    int32_t* vis
    uint8_t* gw
    int8_t* glab
    uint8_t* tw


cdef class Kernel:
    """The blast-radius kernel of one snapshot.

    Parameters (shapes: ``n`` nodes, ``p`` pairs, ``p0`` of them with a variant-0 edge): ``pair_ptr`` (n + 1,)
    int64; ``packed`` (p + 1,) uint64 (the layout above: :func:`graphkit.analysis.kernel.pack`, then a 0 pad
    record: a scan reads one record past a row's end); ``best`` (2 p,) int64 (the snapshot's ``best`` raveled,
    variant-major); ``seconds`` the (s,) float64 increasing table of lasting seconds the ranks index (inf last,
    s <= 255: a rank fits a byte beside the mark of no width); ``weight`` (n,) int64 criticality weights;
    ``node0`` (2 n + 2,) uint64, ``packed0`` (p0 + 1,) uint64 and ``best0`` (p0,) int64 the variant-0 pairs
    (:func:`graphkit.analysis.kernel.split`); ``copy`` (n,) int16 per node -1, or the lifetime code (bits 0-3) and
    the rank of the seconds (bits 4-11) of a copy of its value (the copy principle:
    :func:`graphkit.analysis.kernel.copy_column`).  Raises ValueError on inconsistent shapes (and for ``n`` >= 2**30
    nodes: bit 30 of a local index marks a node whose tree path has an uncertain arc, in the reach), and for a
    weight outside 0..32767 (kept in 15 bits beside the copy column: :func:`_node_attr`).  Keeps what
    its scans read besides the records, made from ``node0`` and ``packed0`` (:func:`_variant0_scan`: 6 bytes a
    variant-0 pair, 16 a node).
    """

    cdef const int64_t[::1] pair_ptr
    cdef const uint64_t[::1] packed
    cdef const int64_t[::1] best
    cdef const double[::1] seconds
    cdef const int64_t[::1] weight
    cdef const uint64_t[::1] node0
    cdef const uint32_t[::1] tgt0
    cdef const uint16_t[::1] attr0
    cdef const uint64_t[::1] packed0
    cdef const int64_t[::1] best0
    cdef const int16_t[::1] copy
    cdef const int32_t[::1] node_attr
    cdef Py_ssize_t n
    cdef Py_ssize_t p
    cdef int32_t[::1] local
    cdef uint8_t[::1] code
    cdef int32_t[::1] visit
    cdef uint8_t[::1] gwidth
    cdef int8_t[::1] glabel
    cdef uint8_t[::1] twin
    cdef Work work
    cdef bint busy
    #: how many BFS searches over the reached rows the last query ran besides the reach and the widths (0, 1 or
    #: 2: the certain-only tree, the one over every pair, when not read off the reach; for the tests)
    cdef public int searches
    #: rows the last query's searches did not scan, a twin's row (:func:`_twin_classes`) having been scanned before
    #: in the same search (for the tests)
    cdef public Py_ssize_t twins_skipped

    def __cinit__(self):
        work_init(&self.work)

    def __init__(self, pair_ptr, packed, best, seconds, weight, node0, packed0, best0, copy):
        self.pair_ptr = pair_ptr
        self.packed = packed
        self.best = best
        self.seconds = seconds
        self.weight = weight
        self.node0 = node0
        self.packed0 = packed0
        self.best0 = best0
        self.copy = copy
        self.n = pair_ptr.shape[0] - 1
        self.p = best.shape[0] // 2
        if (packed.shape[0] != self.p + 1 or best.shape[0] % 2 or weight.shape[0] != self.n or copy.shape[0] != self.n
                or not 0 < seconds.shape[0] <= 255 or self.n >= 2 ** 30 or seconds[seconds.shape[0] - 1] != float("inf")
                or node0.shape[0] != 2 * self.n + 2 or packed0.shape[0] != best0.shape[0] + 1
                or node0[2 * self.n] != <uint64_t>best0.shape[0] or pair_ptr[self.n] != self.p
                or best0.shape[0] >= 2 ** 40):
            raise ValueError("snapshot arrays of inconsistent shapes")
        nd, self.tgt0, self.attr0 = _variant0_scan(node0, packed0)
        classes, k = _twin_classes(node0, packed0)
        nd[0:2 * self.n:2] |= classes << np.uint64(TWIN_SHIFT)
        self.node0 = nd
        self.twin = np.zeros(k + 1, dtype=np.uint8)
        self.node_attr = _node_attr(weight, copy)
        self.local = np.full(max(self.n, 1), -1, dtype=np.int32)
        self.code = np.zeros(max(self.n, 1), dtype=np.uint8)
        self.visit = np.empty(max(self.n, 1), dtype=np.int32)
        self.gwidth = np.full(max(self.n, 1), NO_WIDTH, dtype=np.uint8)
        self.glabel = np.zeros(max(self.n, 1), dtype=np.int8)
        self.busy = False

    def __dealloc__(self):
        work_free(&self.work)

    def is_clean(self):
        """True when the per-node scratch arrays are back to their fill values (for the tests; O(n))."""
        return bool((np.asarray(self.local) == -1).all() and (np.asarray(self.code) == 0).all()
                    and (np.asarray(self.gwidth) == NO_WIDTH).all() and not np.asarray(self.twin).any())

    def radius(self, srcs):
        """The blast radius of ``srcs`` ((k,) int64 node indexes, distinct, sorted).

        Returns ``(order, code, certain, cparent, carc, cvisit, aparent, aarc, width, life, weight)`` as
        :func:`graphkit.analysis.kernel.radius` documents them (``carc``, ``aarc``: pair indexes, :meth:`arcs`).  Raises IndexError for an index outside
        ``0..n-1``.
        """
        cdef const int64_t[::1] s = np.ascontiguousarray(srcs, dtype=np.int64)
        cdef Py_ssize_t i
        cdef Work temp
        cdef Scratch sc
        cdef int32_t[::1] tl
        cdef uint8_t[::1] tc
        cdef int32_t[::1] tv
        cdef uint8_t[::1] tw
        cdef int8_t[::1] tb
        cdef uint8_t[::1] tt
        for i in range(s.shape[0]):
            if s[i] < 0 or s[i] >= self.n:
                raise IndexError(f"source index {s[i]} outside 0..{self.n - 1}")
        if self.busy:  # another query holds the scratch (a thread): this one gets its own, O(n) once
            tl = np.full(max(self.n, 1), -1, dtype=np.int32)
            tc = np.zeros(max(self.n, 1), dtype=np.uint8)
            tv = np.empty(max(self.n, 1), dtype=np.int32)
            tw = np.full(max(self.n, 1), NO_WIDTH, dtype=np.uint8)
            tb = np.zeros(max(self.n, 1), dtype=np.int8)
            tt = np.zeros(self.twin.shape[0], dtype=np.uint8)
            sc = Scratch(&tl[0], &tc[0], &tv[0], &tw[0], &tb[0], &tt[0])
            work_init(&temp)
            try:
                return self._radius(s, &sc, &temp)
            finally:
                work_free(&temp)
        self.busy = True
        sc = Scratch(&self.local[0], &self.code[0], &self.visit[0], &self.gwidth[0], &self.glabel[0], &self.twin[0])
        try:
            return self._radius(s, &sc, &self.work)
        finally:
            self.busy = False

    cdef tuple _radius(self, const int64_t[::1] srcs, Scratch* sc, Work* w):
        cdef Py_ssize_t r = 0, i, n_src = srcs.shape[0]
        cdef int64_t total = 0
        cdef int64_t[::1] out
        w.codes.size = 0
        w.twins.size = 0
        self.searches = 0
        self.twins_skipped = 0
        try:
            r = self._reach(srcs, sc, w)
            order = np.empty(r, dtype=np.int64)
            out = order
            for i in range(r):
                out[i] = sc.vis[i]
            qsort(w.codes.data, w.codes.size, sizeof(int64_t), _cmp_int64)
            code_out = np.empty(w.codes.size, dtype=np.int64)
            out = code_out
            for i in range(w.codes.size):
                out[i] = w.codes.data[i]
            aparent = aarc = None
            if w.simple:  # the reach's search is the BFS tree over every pair: its parents and arcs (one gather)
                aparent = np.empty(r, dtype=np.int64)
                out = aparent
                for i in range(r):
                    out[i] = w.apar.data[i]
                aarc = self._pairs(w.akidx.data, r)
            if w.simple and (w.all_certain or w.certain_tree):
                # the certain-only BFS is the reach's own search restricted to the nodes its tree enters over
                # certain arcs only (see _reach): no second search
                certain, cparent, carc, cvisit = self._certain_of_reach(w, r, aparent, aarc)
            else:
                certain = np.zeros(r, dtype=np.bool_)
                cparent, carc, cvisit = self._bfs(sc, w, r, n_src, True, certain)
            if cvisit.shape[0] == r:  # every node is certain: no tree over every pair
                aparent = aarc = None
            elif not w.simple:
                aparent, aarc, _ = self._bfs(sc, w, r, n_src, False, None)
            width, life = self._widths(sc, w, r, n_src, &total)
        finally:  # hand the scratch back clean: only the entries this query touched
            for i in range(w.codes.size):
                sc.cd[w.codes.data[i]] = 0
            for i in range(r):
                sc.loc[sc.vis[i]] = -1
            for i in range(w.twins.size):
                sc.tw[w.twins.data[i]] = 0
            w.twins.size = 0
        return order, code_out, certain, cparent, carc, cvisit, aparent, aarc, width, life, total

    cdef tuple _certain_of_reach(self, Work* w, Py_ssize_t r, aparent, aarc):
        """``(certain, cparent, carc, cvisit)`` from the reach's tree (``aparent``, ``aarc``: its parents and pairs)
        when it is the certain-only BFS tree on the nodes it enters over certain arcs only (``w.pset`` 0): those
        in discovery order, the others possible (parent and arc -1).  When every node is certain, ``aparent`` and
        ``aarc`` are returned as the certain-only tree itself."""
        cdef const uint8_t* ps = w.pset.data
        cdef Py_ssize_t i, v = 0
        for i in range(r):
            v += ps[i]
        if v == 0:
            return np.ones(r, dtype=np.bool_), aparent, aarc, np.arange(r, dtype=np.int64)
        certain_a = np.empty(r, dtype=np.bool_)
        cparent_a = np.empty(r, dtype=np.int64)
        carc_a = np.empty(r, dtype=np.int64)
        cvisit_a = np.empty(r - v, dtype=np.int64)
        cdef uint8_t[::1] certain = certain_a.view(np.uint8)
        cdef int64_t[::1] cparent = cparent_a
        cdef int64_t[::1] carc = carc_a
        cdef int64_t[::1] cvisit = cvisit_a
        cdef const int64_t[::1] ap = aparent
        cdef const int64_t[::1] aa = aarc
        v = 0
        for i in range(r):
            if ps[i]:
                certain[i] = 0
                cparent[i] = -1
                carc[i] = -1
            else:
                certain[i] = 1
                cparent[i] = ap[i]
                carc[i] = aa[i]
                cvisit[v] = i
                v += 1
        return certain_a, cparent_a, carc_a, cvisit_a

    cdef object _pairs(self, const int64_t* kidx, Py_ssize_t r):
        """(r,) int64: a copy of ``kidx[:r]``, the pair index of the arc entering each node (-1: none), which
        :meth:`arcs` turns into explanation arcs (when a path is asked for: one gather)."""
        pair_a = np.empty(r, dtype=np.int64)
        cdef int64_t[::1] pair = pair_a
        if r:
            memcpy(&pair[0], kidx, r * sizeof(int64_t))
        return pair_a

    def arcs(self, pairs):
        """(k,) int64: the explanation arc of every pair index in ``pairs`` ((k,) int64 as :meth:`radius` returns
        them in ``carc`` and ``aarc``; -1 where it is -1): ``best[i]`` for ``i < 2 p`` (variant-major), else
        ``best0[i - 2 p]`` (a pair of ``packed0``).  Raises IndexError for an index outside ``-1..2 p + p0 - 1``."""
        cdef const int64_t[::1] kidx = np.ascontiguousarray(pairs, dtype=np.int64)
        cdef Py_ssize_t i, r = kidx.shape[0]
        cdef int64_t k, two_p = 2 * self.p, top = 2 * self.p + self.best0.shape[0]
        for i in range(r):
            if kidx[i] < -1 or kidx[i] >= top:
                raise IndexError(f"pair index {kidx[i]} outside -1..{top - 1}")
        arc_a = np.empty(r, dtype=np.int64)
        cdef int64_t[::1] arc = arc_a
        cdef const int64_t* best = &self.best[0] if self.best.shape[0] else NULL
        cdef const int64_t* best0 = &self.best0[0] if self.best0.shape[0] else NULL
        for i in range(r):
            k = kidx[i]
            arc[i] = -1 if k < 0 else (best[k] if k < two_p else best0[k - two_p])
        return arc_a

    cdef Py_ssize_t _reach(self, const int64_t[::1] srcs, Scratch* sc, Work* w) except -1:
        """cbfs.reach: a FIFO search over variant-0 pairs from the seeds (the sources, then the variant-1-only
        targets of the code nodes), again from scratch while it finds new code nodes.  Fills ``vis[:count]``
        (the order) and ``loc`` (position in it, bit 30 set for a node of P below), marks ``cd`` (listed in
        ``w.codes``), and keeps the search's tree (``w.apar``, ``w.akidx``), the BFS tree over every pair when
        ``w.simple``.  The rows scanned are those of the reached nodes but the sinks (their rows are empty), in
        the order reached (``w.queue``, local indexes).

        The certain-only BFS from the sources is that search with the uncertain pairs skipped.  Let P be the nodes
        whose tree path has an uncertain arc (``w.pset``; closed under tree descendants).  When no certain pair
        leaves a node outside P into a node in P (``w.certain_tree``), the certain-only BFS visits exactly the
        nodes outside P, in the same order, each from the same pair: by induction over its queue (this search's
        without P), every pair it skips either discovered a node of P here or met a node already seen, every pair
        from a node outside P into one outside P meets it as here, and the rows of P discovered only nodes of P.
        So P is the possible nodes and no second search is needed (:meth:`_certain_of_reach`)."""
        cdef Py_ssize_t i, head, count = 0, qt, lu
        cdef int64_t* qd
        cdef int64_t u, t, q, q1, base
        cdef uint64_t rec, has_var, cert
        cdef const uint64_t* packed = &self.packed[0]
        cdef const int64_t* pptr = &self.pair_ptr[0]
        cdef const uint64_t* packed0 = &self.packed0[0]
        cdef const uint64_t* nd = &self.node0[0]
        cdef const uint64_t* rows
        cdef int32_t* loc = sc.loc
        cdef uint8_t* cd = sc.cd
        cdef int32_t* vis = sc.vis
        cdef int64_t* ap
        cdef int64_t* ak
        cdef uint8_t* ps
        cdef uint8_t pu, code_row, pb
        cdef uint8_t* tw = sc.tw
        cdef Py_ssize_t tc, before
        cdef uint64_t d0 = 0, sk, newc
        cdef uint32_t x
        cdef const uint32_t* tg0 = &self.tgt0[0]
        cdef int32_t bad
        cdef int32_t lt
        cdef uint64_t uncertain
        cdef int shift
        w.seeds.size = 0
        w.fresh.size = 0
        try:
            for i in range(srcs.shape[0]):
                u = srcs[i]
                if not cd[u]:
                    cd[u] = 1
                    buf_push(&w.codes, u)
                buf_push(&w.fresh, u)
                buf_push(&w.seeds, u)
            while True:
                for i in range(w.fresh.size):  # the variant-1-only targets of the new code nodes, row by row
                    u = w.fresh.data[i]
                    for q in range(pptr[u], pptr[u + 1]):
                        rec = packed[q]
                        if (rec & HAS1) and not (rec & HAS0):
                            buf_push(&w.seeds, <int64_t>(rec & TARGET_MASK))
                w.fresh.size = 0
                for i in range(count):
                    loc[vis[i]] = -1
                count = 0
                for i in range(w.twins.size):  # a new search: no twin class scanned yet
                    tw[w.twins.data[i]] = 0
                w.twins.size = 0
                buf_reserve(&w.apar, w.seeds.size)
                buf_reserve(&w.akidx, w.seeds.size)
                bytes_reserve(&w.pset, w.seeds.size)
                buf_reserve(&w.queue, w.seeds.size)
                qt = 0
                for i in range(w.seeds.size):
                    t = w.seeds.data[i]
                    if loc[t] < 0:
                        loc[t] = <int32_t>count
                        vis[count] = <int32_t>t
                        w.apar.data[count] = -1
                        w.akidx.data[count] = -1
                        w.pset.data[count] = 0
                        w.queue.data[qt] = count
                        qt += 1
                        count += 1
                w.simple = 1
                w.all_certain = 1
                w.certain_tree = 1
                head = 0
                while head < qt:  # the queue of rows to scan: the reached nodes but the sinks (no pair)
                    # the rows a few places ahead in the queue: their pointers, then their first records
                    qd = w.queue.data
                    if head + 16 < qt:
                        prefetch(&nd[2 * vis[qd[head + 16]]])
                    if head + 4 < qt:
                        prefetch(&tg0[(nd[2 * vis[qd[head + 4]]] & START_MASK) + 1])
                    lu = qd[head]
                    u = vis[lu]
                    head += 1
                    code_row = cd[u]
                    tc = 0
                    if code_row:  # a code row: every pair (the full array), its variant-0 pairs followed
                        rows, q, q1, rec = packed, pptr[u], pptr[u + 1], packed[pptr[u]]
                        has_var, base, shift = HAS1, self.p, ATTR + 13
                    else:  # only the variant-0 pairs, in their own array (arc index 2 p + their position)
                        d0 = nd[2 * u]
                        tc = <Py_ssize_t>((d0 >> TWIN_SHIFT) & TWIN_MASK)
                        if tc and (tw[tc] & TW_REACH):
                            # a twin's row was scanned in this search: its every target is reached and its code
                            # marks made, so this scan would only check its certain pairs into P (the twin's answer)
                            if (tw[tc] & TW_BAD) and not w.pset.data[lu]:
                                w.certain_tree = 0
                            self.twins_skipped += 1
                            continue
                        q, q1 = <int64_t>(d0 & START_MASK), <int64_t>(nd[2 * u + 2] & START_MASK)
                        rows, rec = packed0, nd[2 * u + 1]
                        has_var, base, shift = HAS0, 2 * self.p, ATTR
                    cert = (<uint64_t>1) << shift
                    if (count + (q1 - q) > w.apar.cap or count + (q1 - q) > w.akidx.cap or count + (q1 - q) > w.pset.cap
                            or qt + (q1 - q) > w.queue.cap):
                        buf_reserve(&w.apar, count + (q1 - q))
                        buf_reserve(&w.akidx, count + (q1 - q))
                        bytes_reserve(&w.pset, count + (q1 - q))
                        buf_reserve(&w.queue, qt + (q1 - q))
                    ap, ak, ps, qd = w.apar.data, w.akidx.data, w.pset.data, w.queue.data
                    pu = ps[lu]
                    if not code_row and not (d0 & SLOW) and q < q1:
                        # the loop below for a row of certain pairs running no code: only their targets are read
                        # (``target0``, 4 bytes a pair; the first one is beside the row's start)
                        bad = 0
                        before = count
                        t = <int64_t>(rec & TARGET_MASK)
                        sk = rec & SINK
                        while True:
                            lt = loc[t]
                            if lt < 0:
                                loc[t] = <int32_t>count | (<int32_t>pu << 30)
                                vis[count] = <int32_t>t
                                ap[count] = lu
                                ak[count] = base + q
                                ps[count] = pu
                                if not sk:
                                    qd[qt] = count
                                    qt += 1
                                count += 1
                            else:  # a certain pair into a node whose tree path has an uncertain arc (PBIT)
                                bad |= lt
                            q += 1
                            if q >= q1:
                                break
                            x = tg0[q]
                            t = <int64_t>(x & 0x7FFFFFFF)
                            sk = x >> 31
                        if (bad & PBIT) and not pu:
                            w.certain_tree = 0
                        if tc:  # its twins' scans are skipped; a certain pair of it enters P if one did before it,
                            # or it entered a node and is in P itself
                            tw[tc] = TW_REACH | (TW_BAD if (bad & PBIT) or (pu and count > before) else 0)
                            buf_push(&w.twins, tc)
                        continue
                    if not code_row:  # the same as below, for a row of variant-0 pairs only
                        uncertain = 0
                        bad = 0
                        newc = 0
                        while q < q1:
                            t = <int64_t>(rec & TARGET_MASK)
                            if rec & RUNS:
                                if not cd[t]:
                                    cd[t] = 1
                                    buf_push(&w.codes, t)
                                    buf_push(&w.fresh, t)
                            lt = loc[t]
                            if lt < 0:
                                pb = pu | <uint8_t>(((rec >> ATTR) & 1) ^ 1)
                                loc[t] = <int32_t>count | (<int32_t>pb << 30)
                                vis[count] = <int32_t>t
                                ap[count] = lu
                                ak[count] = base + q
                                ps[count] = pb
                                if not (rec & SINK):
                                    qd[qt] = count
                                    qt += 1
                                count += 1
                                newc |= rec
                            else:  # PBIT (bit 30) of the target's, if the pair is certain (CERT0: bit 35)
                                bad |= lt & <int32_t>(rec >> 5)
                            uncertain |= ~rec
                            q += 1
                            rec = packed0[q]
                        if (bad & PBIT) and not pu:
                            w.certain_tree = 0
                        if tc:  # as above: a certain pair of it entering a node makes that node's path the row's
                            tw[tc] = TW_REACH | (TW_BAD if (bad & PBIT) or (pu and (newc & CERT0)) else 0)
                            buf_push(&w.twins, tc)
                        if not (uncertain & CERT0):
                            continue
                        w.all_certain = 0
                        continue
                    while q < q1:  # rec: the pair q (the next is read at the end: the arrays end with a pad)
                        if rec & HAS0:
                            t = <int64_t>(rec & TARGET_MASK)
                            if (rec & RUNS) and not cd[t]:
                                cd[t] = 1
                                buf_push(&w.codes, t)
                                buf_push(&w.fresh, t)
                            lt = loc[t]
                            if lt < 0:
                                pb = pu | (not (rec & cert))
                                loc[t] = <int32_t>count | (<int32_t>pb << 30)
                                vis[count] = <int32_t>t
                                ap[count] = lu
                                ak[count] = base + q
                                ps[count] = pb
                                if not (rec & SINK):
                                    qd[qt] = count
                                    qt += 1
                                count += 1
                            elif (rec & cert) and not pu and (lt & PBIT):
                                w.certain_tree = 0
                            if not (rec & cert):
                                w.all_certain = 0
                        elif rec & has_var:  # a variant-1-only pair of a code row (its target is a seed)
                            w.simple = 0
                        q += 1
                        rec = rows[q]
                if w.fresh.size == 0:
                    return count
                qsort(w.fresh.data, w.fresh.size, sizeof(int64_t), _cmp_int64)
        except BaseException:
            for i in range(count):
                loc[vis[i]] = -1
            raise

    cdef tuple _bfs(self, Scratch* sc, Work* w, Py_ssize_t r, Py_ssize_t n_src, bint certain_only,
                    object mask_out):
        """cbfs.bfs over the reached rows (each in its node's variant) from the sources ``0..n_src-1``: FIFO, a
        node's parent is the first row (in FIFO order) entering it, its arc the explanation arc of that pair.
        ``(parent, arc, visit)``; marks the visited nodes in ``mask_out`` ((r,) bool) when given."""
        cdef Py_ssize_t head = 0, count = 0, i
        cdef int64_t u, g, t, q, q1, base
        self.searches += 1
        cdef uint64_t rec, has_var, cert
        cdef const uint64_t* packed = &self.packed[0]
        cdef const int64_t* pptr = &self.pair_ptr[0]
        cdef const uint64_t* packed0 = &self.packed0[0]
        cdef const uint64_t* nd = &self.node0[0]
        cdef const uint64_t* rows
        cdef int32_t* loc = sc.loc
        cdef uint8_t* cd = sc.cd
        cdef int32_t* vis = sc.vis
        cdef uint8_t* tw = sc.tw
        cdef uint8_t bit = TW_CBFS if certain_only else TW_ABFS
        cdef Py_ssize_t tc
        parent_a = np.full(r, -1, dtype=np.int64)
        cdef int64_t[::1] parent = parent_a
        cdef int64_t[::1] out
        cdef uint8_t[::1] seen
        buf_reserve(&w.queue, r + 1)
        buf_reserve(&w.kidx, r + 1)
        cdef int64_t* queue = w.queue.data
        cdef int64_t* kidx = w.kidx.data
        seen_a = np.zeros(r, dtype=np.uint8) if mask_out is None else mask_out.view(np.uint8)
        seen = seen_a
        for i in range(r):
            kidx[i] = -1
        for i in range(n_src):
            seen[i] = 1
            queue[count] = i
            count += 1
        while head < count and count < r:  # once every node is in, the rest of the scan changes nothing
            if head + 16 < count:
                prefetch(&nd[2 * vis[queue[head + 16]]])
            if head + 4 < count:
                prefetch(&packed0[(nd[2 * vis[queue[head + 4]]] & START_MASK) + 1])
            u = queue[head]
            head += 1
            g = vis[u]
            if cd[g]:  # every pair of a code row (variant 1)
                rows, q, q1, rec = packed, pptr[g], pptr[g + 1], packed[pptr[g]]
                has_var, cert, base = HAS1, (<uint64_t>1) << (ATTR + 13), self.p
            else:  # the variant-0 pairs only, in their own array
                tc = <Py_ssize_t>((nd[2 * g] >> TWIN_SHIFT) & TWIN_MASK)
                if tc:  # a twin's row scanned before in this search saw every target this one would
                    if tw[tc] & bit:
                        self.twins_skipped += 1
                        continue
                    if not tw[tc]:
                        buf_push(&w.twins, tc)
                    tw[tc] |= bit
                q, q1 = <int64_t>(nd[2 * g] & START_MASK), <int64_t>(nd[2 * g + 2] & START_MASK)
                rows, rec = packed0, nd[2 * g + 1]
                has_var, cert, base = HAS0, (<uint64_t>1) << ATTR, 2 * self.p
            if not certain_only:
                cert = has_var
            while q < q1:
                if (rec & has_var) and (rec & cert):
                    t = loc[<int64_t>(rec & TARGET_MASK)] & LOC_MASK
                    if not seen[t]:
                        seen[t] = 1
                        parent[t] = u
                        kidx[t] = base + q
                        queue[count] = t
                        count += 1
                q += 1
                rec = rows[q]
        visit_a = np.empty(count, dtype=np.int64)
        out = visit_a
        for i in range(count):
            out[i] = queue[i]
        return parent_a, self._pairs(kidx, r), visit_a

    cdef void _preset(self, Buf* copies, uint8_t* gw, int8_t* glab, int level) noexcept:
        """The copies of width ``level`` still without one get it, and their own label (searched from later);
        ``copies`` holds ``global index | code << 32 | rank << 36``."""
        cdef Py_ssize_t i
        cdef int64_t pk, t
        for i in range(copies.size):
            pk = copies.data[i]
            t = pk & TARGET_MASK
            if <int>(pk >> 36) == level and gw[t] == NO_WIDTH:
                gw[t] = <uint8_t>level
                glab[t] = <int8_t>((pk >> 32) & 0xF)

    cdef tuple _widths(self, Scratch* sc, Work* w, Py_ssize_t r, Py_ssize_t n_src, int64_t* total):
        """cbfs.widths on ranks of the lasting seconds: widths in decreasing order; inside width ``w`` a FIFO
        search from the seeds over the pairs lasting at least ``w`` into nodes without a width; a pair lasting
        less waits (pending, in the order met) for its own width, whose seeds are the first pending pair into
        each node.  ``(width, label)``: (r,) float64 seconds and int8 lifetime codes.  The search runs on global
        node indexes (``sc.gw``, ``sc.glab``: a byte each per node, handed back clean), so a pair's target needs
        no local index.  A reached copy (``copy``, not a source: the copy principle) gets its own width and label when
        that width starts, and is searched from, in id order, once the width's search is done (radius_arrays.widths'
        ``copies``)."""
        cdef Py_ssize_t head = 0, count = 0, done = 0, i, kept, before
        cdef int64_t u, t, q, q1, pk
        cdef uint64_t rec, has_var, a
        cdef int shift
        cdef int level = self.seconds.shape[0] - 1, rank, top  # the rank of inf
        cdef const uint64_t* packed = &self.packed[0]
        cdef const int64_t* pptr = &self.pair_ptr[0]
        cdef const uint64_t* packed0 = &self.packed0[0]
        cdef const uint64_t* nd = &self.node0[0]
        cdef const uint64_t* rows
        cdef uint8_t* cd = sc.cd
        cdef int32_t* vis = sc.vis
        cdef uint8_t* gw = sc.gw
        cdef int8_t* glab = sc.glab
        cdef const int16_t* cp = &self.copy[0]
        cdef const int32_t* nat = &self.node_attr[0]
        cdef int32_t na
        cdef int64_t tot = 0
        cdef const uint32_t* tg0 = &self.tgt0[0]
        cdef const uint16_t* at0 = &self.attr0[0]
        cdef int have
        cdef uint64_t sk
        cdef uint32_t x
        cdef int16_t c
        cdef Buf copies = Buf(NULL, 0, 0)
        cdef uint8_t* tw = sc.tw
        cdef Py_ssize_t tc
        cdef uint64_t d0
        width_a = np.empty(r, dtype=np.float64)
        label_a = np.empty(r, dtype=np.int8)
        cdef double[::1] width = width_a
        cdef int8_t[::1] label = label_a
        buf_reserve(&w.queue, r + 1)
        cdef int64_t* queue = w.queue.data
        w.pending.size = 0
        try:
            for i in range(n_src):
                u = vis[i]
                gw[u] = <uint8_t>level
                glab[u] = 0
                queue[count] = u
                count += 1
                done += 1
            for i in range(n_src, r):  # the weights; the copies (the copy principle), by id below
                na = nat[vis[i]]
                tot += na >> 16
                if <int16_t>(na & 0xFFFF) >= 0:
                    buf_push(&copies, vis[i])
            total[0] = tot
            _sort_ids(copies.data, copies.size)
            for i in range(copies.size):
                c = cp[copies.data[i]]
                copies.data[i] = copies.data[i] | (<int64_t>(c & 0xF) << 32) | (<int64_t>(c >> 4) << 36)
            self._preset(&copies, gw, glab, level)
            while done < r:  # done: nodes with a width (count: in the queue, sinks left out, their row empty)
                while head < count and done < r:
                    if head + 16 < count:
                        prefetch(&nd[2 * queue[head + 16]])
                    if head + 4 < count:
                        prefetch(&tg0[(nd[2 * queue[head + 4]] & START_MASK) + 1])
                    u = queue[head]
                    head += 1
                    if not cd[u]:  # the variant-0 pairs only, as the loop below: their targets (``target0``; the
                        # first record is beside the row's start), and the attributes (``attr0``) of a pair into a
                        # node without a width
                        d0 = nd[2 * u]
                        tc = <Py_ssize_t>((d0 >> TWIN_SHIFT) & TWIN_MASK)
                        if tc:  # a twin's row scanned before (at this width or a wider one) left every target of
                            # this row with a width or waiting ahead of this row's own pair (the same attributes)
                            if tw[tc] & TW_WIDTHS:
                                self.twins_skipped += 1
                                continue
                            if not tw[tc]:
                                buf_push(&w.twins, tc)
                            tw[tc] |= TW_WIDTHS
                        q, q1 = <int64_t>(d0 & START_MASK), <int64_t>(nd[2 * u + 2] & START_MASK)
                        rec = nd[2 * u + 1]
                        t = <int64_t>(rec & TARGET_MASK)
                        sk = rec & SINK
                        have = 1
                        while q < q1:
                            if gw[t] == NO_WIDTH:
                                if not have:
                                    rec = (<uint64_t>at0[q]) << ATTR
                                a = rec >> ATTR
                                rank = <int>((a >> 5) & 0xFF)
                                if rank < level:
                                    buf_push(&w.pending, t | <int64_t>(((a >> 1) & 0xF) << 32)
                                             | (<int64_t>rank << 36))
                                else:
                                    gw[t] = <uint8_t>level
                                    glab[t] = <int8_t>((a >> 1) & 0xF) if rank == level else glab[u]
                                    done += 1
                                    if not sk:
                                        queue[count] = t
                                        count += 1
                            q += 1
                            x = tg0[q]
                            t = <int64_t>(x & 0x7FFFFFFF)
                            sk = x >> 31
                            have = 0
                        continue
                    rows, q, q1, rec = packed, pptr[u], pptr[u + 1], packed[pptr[u]]
                    has_var, shift = HAS1, ATTR + 13
                    while q < q1:
                        if rec & has_var:
                            t = <int64_t>(rec & TARGET_MASK)
                            if gw[t] == NO_WIDTH:
                                a = rec >> shift
                                rank = <int>((a >> 5) & 0xFF)
                                if rank < level:  # waits: its target, lifetime code and rank
                                    buf_push(&w.pending, t | <int64_t>(((a >> 1) & 0xF) << 32)
                                             | (<int64_t>rank << 36))
                                else:
                                    gw[t] = <uint8_t>level
                                    glab[t] = <int8_t>((a >> 1) & 0xF) if rank == level else glab[u]
                                    done += 1
                                    if not (rec & SINK):
                                        queue[count] = t
                                        count += 1
                        q += 1
                        rec = rows[q]
                kept = 0  # the copies of this width (preset) join its search once it is done; others wait
                before = count
                for i in range(copies.size):
                    pk = copies.data[i]
                    t = pk & TARGET_MASK
                    if gw[t] == NO_WIDTH:
                        copies.data[kept] = pk
                        kept += 1
                    elif gw[t] == level and <int>(pk >> 36) == level:
                        queue[count] = t
                        count += 1
                        done += 1
                copies.size = kept
                if count > before:
                    continue
                if done >= r:
                    break
                kept = 0  # the pending pairs into nodes still without a width, in order
                top = -1
                for i in range(copies.size):
                    if <int>(copies.data[i] >> 36) > top:
                        top = <int>(copies.data[i] >> 36)
                for i in range(w.pending.size):
                    pk = w.pending.data[i]
                    if gw[pk & TARGET_MASK] == NO_WIDTH:
                        w.pending.data[kept] = pk
                        kept += 1
                        rank = <int>(pk >> 36)
                        if rank > top:
                            top = rank
                w.pending.size = kept
                if top < 0:
                    break
                level = top
                self._preset(&copies, gw, glab, level)
                kept = 0  # the pairs of the new width seed it (first one per node); the others keep waiting
                for i in range(w.pending.size):
                    pk = w.pending.data[i]
                    if <int>(pk >> 36) == level:
                        t = pk & TARGET_MASK
                        if gw[t] == NO_WIDTH:
                            gw[t] = <uint8_t>level
                            glab[t] = <int8_t>((pk >> 32) & 0xF)
                            queue[count] = t
                            count += 1
                            done += 1
                    else:
                        w.pending.data[kept] = pk
                        kept += 1
                w.pending.size = kept
        finally:  # the widths and labels in discovery order; the width bytes handed back clean
            for i in range(r):
                u = vis[i]
                if gw[u] != NO_WIDTH:
                    width[i] = self.seconds[gw[u]]
                    label[i] = glab[u]
                    gw[u] = NO_WIDTH
                else:
                    width[i] = -1.0
                    label[i] = 0
            free(copies.data)
        return width_a, label_a
