# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The whole array blast radius in one compiled call (see :mod:`graphkit.analysis.kernel`, its wrapper).

One :class:`Kernel` per traversal snapshot holds the snapshot's pairs packed one 64-bit record each (target,
has/runs-code flags, and per variant: certain, lifetime code, rank of the lasting seconds), the explanation arcs
and node weights, per-node scratch arrays (local index, code mark, visit buffer: handed back clean after every
query, only the entries touched being reset) and work buffers sized by the largest reach so far: a query costs
O(its reached pairs), never O(n).  :meth:`Kernel.radius` replays, step for step, the scipy path of
:func:`graphkit.analysis.radius_arrays.radius_arrays` (:func:`graphkit.analysis.cbfs.reach`, :func:`~graphkit.
analysis.radius_arrays.local_csr`, :func:`graphkit.analysis.cbfs.bfs` twice, :func:`graphkit.analysis.cbfs.
widths`) as sequential FIFO loops; the local CSR of the reached pairs is written during the reach's own scan.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc

import numpy as np

# a packed pair: bits 0-31 target, 32 has (variant 0), 33 has (variant 1), 34 runs code, then per variant v
# 13 bits at ATTR + 13 v: certain (1), lifetime code (4), rank of the lasting seconds (8); a local entry: bits
# 0-31 local target, 32-44 the attribute of its row's variant
cdef extern from *:
    """
    #define GK_HAS0 (((uint64_t)1) << 32)
    #define GK_HAS1 (((uint64_t)1) << 33)
    #define GK_RUNS (((uint64_t)1) << 34)
    #define GK_ATTR 35
    #define GK_ATTR_MASK ((uint64_t)0x1FFF)
    #define GK_TARGET_MASK ((uint64_t)0xFFFFFFFF)
    """
    const uint64_t HAS0 "GK_HAS0"
    const uint64_t HAS1 "GK_HAS1"
    const uint64_t RUNS "GK_RUNS"
    const int ATTR "GK_ATTR"
    const uint64_t ATTR_MASK "GK_ATTR_MASK"
    const uint64_t TARGET_MASK "GK_TARGET_MASK"


cdef int _cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0]
    cdef int64_t y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


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


cdef struct Work:
    # the local CSR of the reached pairs: r + 1 row pointers, entries (local target | attribute << 32) and the
    # index of each entry's explanation arc in ``best``; a FIFO queue of local nodes; seeds, fresh code nodes,
    # code nodes, pending entries (widths); the reach's own tree (parent, arc per local node) and whether it is
    # the BFS tree over every entry (``simple``: no code node has a variant-1-only pair)
    Buf ptr
    Buf ent
    Buf arcidx
    Buf queue
    Buf seeds
    Buf fresh
    Buf codes
    Buf pending
    Buf apar
    Buf aarc
    int simple


cdef void work_free(Work* w) noexcept:
    free(w.ptr.data)
    free(w.ent.data)
    free(w.arcidx.data)
    free(w.queue.data)
    free(w.seeds.data)
    free(w.fresh.data)
    free(w.codes.data)
    free(w.pending.data)
    free(w.apar.data)
    free(w.aarc.data)


cdef class Kernel:
    """The blast-radius kernel of one snapshot.

    Parameters (shapes: ``n`` nodes, ``p`` pairs): ``pair_ptr`` (n + 1,) int64; ``packed`` (p,) uint64 (the
    layout above: :func:`graphkit.analysis.kernel.kernel_of` packs them); ``best`` (2 p,) int64 (the snapshot's
    ``best`` raveled, variant-major); ``seconds`` the (s,) float64 increasing table of lasting seconds the ranks
    index (inf last); ``weight`` (n,) int64 criticality weights.  Raises ValueError on inconsistent shapes.
    """

    cdef const int64_t[::1] pair_ptr
    cdef const uint64_t[::1] packed
    cdef const int64_t[::1] best
    cdef const double[::1] seconds
    cdef const int64_t[::1] weight
    cdef Py_ssize_t n
    cdef Py_ssize_t p
    cdef int32_t[::1] local
    cdef uint8_t[::1] code
    cdef int32_t[::1] visit
    cdef Work work
    cdef bint busy

    def __cinit__(self):
        self.work = Work(Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0),
                         Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), 1)

    def __init__(self, pair_ptr, packed, best, seconds, weight):
        self.pair_ptr = pair_ptr
        self.packed = packed
        self.best = best
        self.seconds = seconds
        self.weight = weight
        self.n = pair_ptr.shape[0] - 1
        self.p = packed.shape[0]
        if (best.shape[0] != 2 * self.p or weight.shape[0] != self.n or not 0 < seconds.shape[0] <= 256
                or self.n >= 2 ** 31 or seconds[seconds.shape[0] - 1] != float("inf")):
            raise ValueError("snapshot arrays of inconsistent shapes")
        self.local = np.full(self.n, -1, dtype=np.int32)
        self.code = np.zeros(self.n, dtype=np.uint8)
        self.visit = np.empty(max(self.n, 1), dtype=np.int32)
        self.busy = False

    def __dealloc__(self):
        work_free(&self.work)

    def is_clean(self):
        """True when the per-node scratch arrays are back to their fill values (for the tests; O(n))."""
        return bool((np.asarray(self.local) == -1).all() and (np.asarray(self.code) == 0).all())

    def radius(self, srcs):
        """The blast radius of ``srcs`` ((k,) int64 node indexes, distinct, sorted).

        Returns ``(order, code, certain, cparent, carc, cvisit, aparent, aarc, width, life, weight)`` as
        :class:`graphkit.analysis.kernel.Radius` documents them.  Raises IndexError for an index outside
        ``0..n-1``.
        """
        cdef const int64_t[::1] s = np.ascontiguousarray(srcs, dtype=np.int64)
        cdef Py_ssize_t i
        cdef Work temp
        for i in range(s.shape[0]):
            if s[i] < 0 or s[i] >= self.n:
                raise IndexError(f"source index {s[i]} outside 0..{self.n - 1}")
        if self.busy:  # another query holds the scratch (a thread): this one gets its own, O(n) once
            temp = Work(Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0),
                        Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), Buf(NULL, 0, 0), 1)
            try:
                return self._radius(s, np.full(self.n, -1, dtype=np.int32), np.zeros(self.n, dtype=np.uint8),
                                    np.empty(max(self.n, 1), dtype=np.int32), &temp)
            finally:
                work_free(&temp)
        self.busy = True
        try:
            return self._radius(s, self.local, self.code, self.visit, &self.work)
        finally:
            self.busy = False

    cdef tuple _radius(self, const int64_t[::1] srcs, int32_t[::1] local, uint8_t[::1] code,
                       int32_t[::1] visit, Work* w):
        cdef Py_ssize_t r = 0, i, n_src = srcs.shape[0]
        cdef int64_t total = 0
        cdef int64_t[::1] out
        w.codes.size = 0
        try:
            r = self._reach(srcs, local, code, visit, w)
            order = np.empty(r, dtype=np.int64)
            out = order
            for i in range(r):
                out[i] = visit[i]
            for i in range(n_src, r):
                total += self.weight[visit[i]]
            qsort(w.codes.data, w.codes.size, sizeof(int64_t), _cmp_int64)
            code_out = np.empty(w.codes.size, dtype=np.int64)
            out = code_out
            for i in range(w.codes.size):
                out[i] = w.codes.data[i]
        finally:  # hand the scratch back clean: only the entries this query touched
            for i in range(w.codes.size):
                code[w.codes.data[i]] = 0
            for i in range(r):
                local[visit[i]] = -1
        certain = np.zeros(r, dtype=np.bool_)
        cparent, carc, cvisit = self._bfs(w, r, n_src, True, certain)
        if cvisit.shape[0] < r and w.simple:  # the reach's search was the BFS over every entry
            aparent = np.empty(r, dtype=np.int64)
            aarc = np.empty(r, dtype=np.int64)
            out = aparent
            for i in range(r):
                out[i] = w.apar.data[i]
            out = aarc
            for i in range(r):
                out[i] = w.aarc.data[i]
        elif cvisit.shape[0] < r:
            aparent, aarc, _ = self._bfs(w, r, n_src, False, None)
        else:
            aparent = aarc = None
        width, life = self._widths(w, r, n_src)
        return order, code_out, certain, cparent, carc, cvisit, aparent, aarc, width, life, total

    cdef Py_ssize_t _reach(self, const int64_t[::1] srcs, int32_t[::1] local, uint8_t[::1] code,
                           int32_t[::1] visit, Work* w) except -1:
        """cbfs.reach and local_csr in one scan: a FIFO search over variant-0 pairs from the seeds (the sources,
        then the variant-1-only targets of the code nodes), again from scratch while it finds new code nodes.
        Fills ``visit[:count]`` (the order), ``local`` (position in it), marks ``code`` (listed in ``w.codes``),
        and writes each scanned row's pairs in its variant as local entries (valid once no code node is new:
        then every code node's variant-1 targets were seeds)."""
        cdef Py_ssize_t i, head, count = 0
        cdef int64_t u, t, q, q1, shift, base
        cdef uint64_t rec, has_var
        cdef int32_t lt
        cdef Py_ssize_t ne
        cdef int64_t *ent
        cdef int64_t *ai
        cdef int64_t *ap
        cdef int64_t *aa
        cdef const uint64_t* packed = &self.packed[0]
        cdef const int64_t* best = &self.best[0]
        cdef const int64_t* pptr = &self.pair_ptr[0]
        cdef int32_t* loc = &local[0]
        cdef uint8_t* cd = &code[0]
        cdef int32_t* vis = &visit[0]
        w.seeds.size = 0
        w.fresh.size = 0
        try:
            for i in range(srcs.shape[0]):
                u = srcs[i]
                if not code[u]:
                    code[u] = 1
                    buf_push(&w.codes, u)
                buf_push(&w.fresh, u)
                buf_push(&w.seeds, u)
            while True:
                for i in range(w.fresh.size):  # the variant-1-only targets of the new code nodes, row by row
                    u = w.fresh.data[i]
                    for q in range(self.pair_ptr[u], self.pair_ptr[u + 1]):
                        rec = self.packed[q]
                        if (rec & HAS1) and not (rec & HAS0):
                            buf_push(&w.seeds, <int64_t>(rec & TARGET_MASK))
                w.fresh.size = 0
                for i in range(count):
                    local[visit[i]] = -1
                count = 0
                buf_reserve(&w.apar, w.seeds.size)
                buf_reserve(&w.aarc, w.seeds.size)
                for i in range(w.seeds.size):
                    t = w.seeds.data[i]
                    if local[t] < 0:
                        local[t] = <int32_t>count
                        visit[count] = <int32_t>t
                        w.apar.data[count] = -1
                        w.aarc.data[count] = -1
                        count += 1
                w.simple = 1
                ne = 0
                head = 0
                while head < count:
                    u = vis[head]
                    if head >= w.ptr.cap:
                        buf_reserve(&w.ptr, head + 1)
                    w.ptr.data[head] = ne
                    head += 1
                    q = pptr[u]
                    q1 = pptr[u + 1]
                    if ne + (q1 - q) > w.ent.cap or ne + (q1 - q) > w.arcidx.cap:
                        buf_reserve(&w.ent, ne + (q1 - q))
                        buf_reserve(&w.arcidx, ne + (q1 - q))
                    if count + (q1 - q) > w.apar.cap or count + (q1 - q) > w.aarc.cap:
                        buf_reserve(&w.apar, count + (q1 - q))
                        buf_reserve(&w.aarc, count + (q1 - q))
                    ent, ai, ap, aa = w.ent.data, w.arcidx.data, w.apar.data, w.aarc.data
                    if cd[u]:
                        has_var, shift, base = HAS1, ATTR + 13, self.p
                    else:
                        has_var, shift, base = HAS0, ATTR, 0
                    while q < q1:
                        rec = packed[q]
                        if rec & HAS0:
                            t = <int64_t>(rec & TARGET_MASK)
                            if (rec & RUNS) and not cd[t]:
                                cd[t] = 1
                                buf_push(&w.codes, t)
                                buf_push(&w.fresh, t)
                            lt = loc[t]
                            if lt < 0:
                                lt = <int32_t>count
                                loc[t] = lt
                                vis[count] = <int32_t>t
                                ap[count] = head - 1
                                aa[count] = best[base + q]
                                count += 1
                        elif rec & has_var:  # a variant-1-only pair of a code row (its target is a seed)
                            w.simple = 0
                            lt = loc[<int64_t>(rec & TARGET_MASK)]
                        else:
                            q += 1
                            continue
                        ent[ne] = (<int64_t>((rec >> shift) & ATTR_MASK) << 32) | <uint32_t>lt
                        ai[ne] = base + q
                        ne += 1
                        q += 1
                w.ent.size = ne
                w.arcidx.size = ne
                buf_reserve(&w.ptr, count + 1)
                w.ptr.data[count] = w.ent.size
                if w.fresh.size == 0:
                    return count
                qsort(w.fresh.data, w.fresh.size, sizeof(int64_t), _cmp_int64)
        except BaseException:
            for i in range(count):
                local[visit[i]] = -1
            raise

    cdef tuple _bfs(self, Work* w, Py_ssize_t r, Py_ssize_t n_src, bint certain_only, object mask_out):
        """cbfs.bfs on the local CSR from the sources ``0..n_src-1``: FIFO, a node's parent is the first row (in
        FIFO order) entering it, its arc the explanation arc of that entry.  ``(parent, arc, visit)``; marks
        the visited nodes in ``mask_out`` ((r,) bool) when given."""
        cdef Py_ssize_t head = 0, count = 0, i
        cdef int64_t u, e, t, x
        cdef int64_t* ptr = w.ptr.data
        cdef int64_t* ent = w.ent.data
        parent_a = np.full(r, -1, dtype=np.int64)
        arc_a = np.full(r, -1, dtype=np.int64)
        cdef int64_t[::1] parent = parent_a
        cdef int64_t[::1] arc = arc_a
        cdef int64_t[::1] out
        cdef uint8_t[::1] seen
        buf_reserve(&w.queue, r + 1)
        cdef int64_t* queue = w.queue.data
        seen_a = np.zeros(r, dtype=np.uint8) if mask_out is None else mask_out.view(np.uint8)
        seen = seen_a
        for i in range(n_src):
            seen[i] = 1
            queue[count] = i
            count += 1
        while head < count and count < r:  # once every node is in, the rest of the scan changes nothing
            u = queue[head]
            head += 1
            for e in range(ptr[u], ptr[u + 1]):
                x = ent[e]
                if certain_only and not ((x >> 32) & 1):
                    continue
                t = x & TARGET_MASK
                if seen[t]:
                    continue
                seen[t] = 1
                parent[t] = u
                arc[t] = self.best[w.arcidx.data[e]]
                queue[count] = t
                count += 1
        visit_a = np.empty(count, dtype=np.int64)
        out = visit_a
        for i in range(count):
            out[i] = queue[i]
        return parent_a, arc_a, visit_a

    cdef tuple _widths(self, Work* w, Py_ssize_t r, Py_ssize_t n_src):
        """cbfs.widths on ranks of the lasting seconds: widths in decreasing order; inside width ``w`` a FIFO
        search from the seeds over the entries lasting at least ``w`` into nodes without a width; an entry
        lasting less waits (pending, in the order met) for its own width, whose seeds are the first pending
        entry into each node.  ``(width, label)``: (r,) float64 seconds and int8 lifetime codes."""
        cdef Py_ssize_t head = 0, count = 0, i, kept
        cdef int64_t u, e, t, x
        cdef int level = self.seconds.shape[0] - 1, rank, top  # the rank of inf
        cdef int64_t* ptr = w.ptr.data
        cdef int64_t* ent = w.ent.data
        width_a = np.empty(r, dtype=np.float64)
        label_a = np.zeros(r, dtype=np.int8)
        cdef double[::1] width = width_a
        cdef int8_t[::1] label = label_a
        cdef int16_t* wr = <int16_t*>malloc((r + 1) * sizeof(int16_t))
        if wr == NULL:
            raise MemoryError()
        buf_reserve(&w.queue, r + 1)
        cdef int64_t* queue = w.queue.data
        w.pending.size = 0
        try:
            for i in range(r):
                wr[i] = -1
            for i in range(n_src):
                wr[i] = level
                queue[count] = i
                count += 1
            while count < r:  # count: nodes with a width; once all have one, nothing changes any more
                while head < count and count < r:
                    u = queue[head]
                    head += 1
                    for e in range(ptr[u], ptr[u + 1]):
                        x = ent[e]
                        t = x & TARGET_MASK
                        if wr[t] >= 0:
                            continue
                        rank = (x >> 37) & 0xFF
                        if rank < level:
                            buf_push(&w.pending, e)
                            continue
                        wr[t] = level
                        label[t] = ((x >> 33) & 0xF) if rank == level else label[u]
                        queue[count] = t
                        count += 1
                kept = 0  # the pending entries into nodes still without a width, in order
                top = -1
                for i in range(w.pending.size):
                    e = w.pending.data[i]
                    x = ent[e]
                    if wr[x & TARGET_MASK] < 0:
                        w.pending.data[kept] = e
                        kept += 1
                        rank = (x >> 37) & 0xFF
                        if rank > top:
                            top = rank
                w.pending.size = kept
                if kept == 0:
                    break
                level = top
                kept = 0  # the entries of the new width seed it (first one per node); the others keep waiting
                for i in range(w.pending.size):
                    e = w.pending.data[i]
                    x = ent[e]
                    if ((x >> 37) & 0xFF) == level:
                        t = x & TARGET_MASK
                        if wr[t] < 0:
                            wr[t] = level
                            label[t] = (x >> 33) & 0xF
                            queue[count] = t
                            count += 1
                    else:
                        w.pending.data[kept] = e
                        kept += 1
                w.pending.size = kept
            for i in range(r):
                width[i] = self.seconds[wr[i]] if wr[i] >= 0 else -1.0
        finally:
            free(wr)
        return width_a, label_a
