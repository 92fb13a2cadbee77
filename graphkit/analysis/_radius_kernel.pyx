# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The whole array blast radius in one compiled call (see :mod:`graphkit.analysis.kernel`, its wrapper).

One :class:`Kernel` per traversal snapshot holds typed views of the snapshot's pair arrays and three per-node
scratch arrays (local index, code mark, visit buffer), made once and handed back clean after every query: a
query costs O(its reached pairs), never O(n).  :meth:`Kernel.radius` replays, step for step, what the scipy
path of :func:`graphkit.analysis.radius_arrays.radius_arrays` computes (:func:`graphkit.analysis.cbfs.reach`,
:func:`~graphkit.analysis.radius_arrays.local_csr`, :func:`graphkit.analysis.cbfs.bfs` twice,
:func:`graphkit.analysis.cbfs.widths`), as sequential FIFO loops in C.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.math cimport INFINITY

import numpy as np


cdef int _cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0]
    cdef int64_t y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef struct Buf:
    int64_t* data
    Py_ssize_t size
    Py_ssize_t cap


cdef int buf_push(Buf* b, int64_t x) except -1:
    cdef int64_t* grown
    if b.size == b.cap:
        b.cap = b.cap * 2 + 16
        grown = <int64_t*>realloc(b.data, b.cap * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError()
        b.data = grown
    b.data[b.size] = x
    b.size += 1
    return 0


cdef struct Local:
    # the reached rows' pairs (each row in its variant), targets as local indexes: r rows, e entries
    Py_ssize_t r
    Py_ssize_t e
    int64_t* ptr        # (r + 1,)
    int32_t* target     # (e,)
    uint8_t* certain    # (e,)
    double* seconds     # (e,)
    int8_t* life        # (e,)
    int64_t* arc        # (e,)


cdef void local_free(Local* loc) noexcept:
    free(loc.ptr)
    free(loc.target)
    free(loc.certain)
    free(loc.seconds)
    free(loc.life)
    free(loc.arc)


cdef class Kernel:
    """The blast-radius kernel of one snapshot (arrays as :class:`graphkit.analysis.snapshot.Snapshot` holds
    them: ``has``, ``certain`` as uint8, the ``(2, p)`` columns raveled, variant-major)."""

    cdef const int64_t[::1] pair_ptr
    cdef const int32_t[::1] pair_target
    cdef const uint8_t[::1] has
    cdef const int64_t[::1] best
    cdef const uint8_t[::1] certain
    cdef const double[::1] seconds
    cdef const int8_t[::1] life
    cdef const uint8_t[::1] runs_code
    cdef const int64_t[::1] weight
    cdef Py_ssize_t n
    cdef Py_ssize_t p
    # per-node scratch: local index (-1 outside a query), code mark (0), visit buffer (no fill)
    cdef int32_t[::1] local
    cdef uint8_t[::1] code
    cdef int32_t[::1] visit
    cdef bint busy

    def __init__(self, pair_ptr, pair_target, has, best, certain, seconds, life, runs_code, weight):
        self.pair_ptr = pair_ptr
        self.pair_target = pair_target
        self.has = has
        self.best = best
        self.certain = certain
        self.seconds = seconds
        self.life = life
        self.runs_code = runs_code
        self.weight = weight
        self.n = pair_ptr.shape[0] - 1
        self.p = pair_target.shape[0]
        if not (has.shape[0] == best.shape[0] == certain.shape[0] == seconds.shape[0] == life.shape[0]
                == 2 * self.p and runs_code.shape[0] == self.p and weight.shape[0] == self.n):
            raise ValueError("snapshot arrays of inconsistent shapes")
        self.local = np.full(self.n, -1, dtype=np.int32)
        self.code = np.zeros(self.n, dtype=np.uint8)
        self.visit = np.empty(max(self.n, 1), dtype=np.int32)
        self.busy = False

    def is_clean(self):
        """True when the scratch arrays are back to their fill values (for the tests; O(n))."""
        return bool((np.asarray(self.local) == -1).all() and (np.asarray(self.code) == 0).all())

    def radius(self, srcs):
        """The blast radius of ``srcs`` ((k,) int64 node indexes, distinct, sorted).

        Returns ``(order, code, certain, cparent, carc, cvisit, aparent, aarc, width, life, weight)`` as
        :func:`graphkit.analysis.kernel.radius` documents them.
        """
        cdef const int64_t[::1] s = np.ascontiguousarray(srcs, dtype=np.int64)
        cdef Py_ssize_t i
        for i in range(s.shape[0]):
            if s[i] < 0 or s[i] >= self.n:
                raise IndexError(f"source index {s[i]} outside 0..{self.n - 1}")
        if self.busy:  # another query holds the scratch (a thread): this one gets its own, O(n) once
            return self._radius(s, np.full(self.n, -1, dtype=np.int32), np.zeros(self.n, dtype=np.uint8),
                                np.empty(max(self.n, 1), dtype=np.int32))
        self.busy = True
        try:
            return self._radius(s, self.local, self.code, self.visit)
        finally:
            self.busy = False

    cdef tuple _radius(self, const int64_t[::1] srcs, int32_t[::1] local, uint8_t[::1] code,
                       int32_t[::1] visit):
        cdef Buf codes = Buf(NULL, 0, 0)
        cdef Local loc
        cdef Py_ssize_t r = 0, i
        cdef int64_t[::1] code_view
        cdef int64_t[::1] visited
        cdef uint8_t[::1] mask
        loc.ptr = NULL; loc.target = NULL; loc.certain = NULL; loc.seconds = NULL; loc.life = NULL
        loc.arc = NULL
        try:
            r = self._reach(srcs, local, code, visit, &codes)
            order = np.empty(r, dtype=np.int64)
            self._local_csr(r, local, code, visit, &loc, order)
            code_out = np.empty(codes.size, dtype=np.int64)
            code_view = code_out
            qsort(codes.data, codes.size, sizeof(int64_t), _cmp_int64)
            for i in range(codes.size):
                code_view[i] = codes.data[i]
            weight = self._weight(visit, srcs.shape[0], r)
        finally:
            # hand the scratch back clean: only the entries this query touched
            for i in range(codes.size):
                code[codes.data[i]] = 0
            free(codes.data)
            for i in range(r):
                local[visit[i]] = -1
        try:
            n_src = srcs.shape[0]
            cparent, carc, cvisit = _bfs(&loc, n_src, True)
            if cvisit.shape[0] < r:
                aparent, aarc, _ = _bfs(&loc, n_src, False)
            else:
                aparent = aarc = None
            width, life = _widths(&loc, n_src)
        finally:
            local_free(&loc)
        certain = np.zeros(r, dtype=np.uint8)
        mask = certain
        visited = cvisit
        for i in range(visited.shape[0]):
            mask[visited[i]] = 1
        certain = certain.view(np.bool_)
        return order, code_out, certain, cparent, carc, cvisit, aparent, aarc, width, life, weight

    cdef Py_ssize_t _reach(self, const int64_t[::1] srcs, int32_t[::1] local, uint8_t[::1] code,
                           int32_t[::1] visit, Buf* codes) except -1:
        """cbfs.reach: FIFO search over variant-0 pairs from the seeds (the sources, then the variant-1-only
        targets of the code nodes); again from scratch while it finds new code nodes.  Fills ``visit[:count]``
        (the order) and ``local`` (position in it), marks ``code`` and lists the code nodes in ``codes``."""
        cdef Buf seeds = Buf(NULL, 0, 0)
        cdef Buf fresh = Buf(NULL, 0, 0)
        cdef Py_ssize_t i, head, count = 0, start, done
        cdef int64_t u, t, q, q0, q1, p = self.p
        try:
            for i in range(srcs.shape[0]):
                u = srcs[i]
                if not code[u]:
                    code[u] = 1
                    buf_push(codes, u)
                buf_push(&fresh, u)
                buf_push(&seeds, u)
            while True:
                for i in range(fresh.size):  # the variant-1-only targets of the new code nodes, row by row
                    u = fresh.data[i]
                    for q in range(self.pair_ptr[u], self.pair_ptr[u + 1]):
                        if self.has[p + q] and not self.has[q]:
                            buf_push(&seeds, self.pair_target[q])
                fresh.size = 0
                for i in range(count):
                    local[visit[i]] = -1
                count = 0
                for i in range(seeds.size):
                    t = seeds.data[i]
                    if local[t] < 0:
                        local[t] = <int32_t>count
                        visit[count] = <int32_t>t
                        count += 1
                head = 0
                while head < count:
                    u = visit[head]
                    head += 1
                    q0, q1 = self.pair_ptr[u], self.pair_ptr[u + 1]
                    for q in range(q0, q1):
                        if not self.has[q]:
                            continue
                        t = self.pair_target[q]
                        if self.runs_code[q] and not code[t]:
                            code[t] = 1
                            buf_push(codes, t)
                            buf_push(&fresh, t)
                        if local[t] < 0:
                            local[t] = <int32_t>count
                            visit[count] = <int32_t>t
                            count += 1
                if fresh.size == 0:
                    return count
                qsort(fresh.data, fresh.size, sizeof(int64_t), _cmp_int64)
        except BaseException:
            for i in range(count):
                local[visit[i]] = -1
            raise
        finally:
            free(seeds.data)
            free(fresh.data)

    cdef int _local_csr(self, Py_ssize_t r, int32_t[::1] local, uint8_t[::1] code, int32_t[::1] visit,
                        Local* loc, order) except -1:
        """local_csr: the pairs of every reached row in its variant, targets as local indexes."""
        cdef int64_t[::1] out = order
        cdef Py_ssize_t i, e = 0
        cdef int64_t u, q, k, base, p = self.p
        for i in range(r):
            u = visit[i]
            out[i] = u
            base = p if code[u] else 0
            for q in range(self.pair_ptr[u], self.pair_ptr[u + 1]):
                if self.has[base + q]:
                    e += 1
        loc.r = r
        loc.e = e
        loc.ptr = <int64_t*>malloc((r + 1) * sizeof(int64_t))
        loc.target = <int32_t*>malloc((e + 1) * sizeof(int32_t))
        loc.certain = <uint8_t*>malloc((e + 1) * sizeof(uint8_t))
        loc.seconds = <double*>malloc((e + 1) * sizeof(double))
        loc.life = <int8_t*>malloc((e + 1) * sizeof(int8_t))
        loc.arc = <int64_t*>malloc((e + 1) * sizeof(int64_t))
        if (loc.ptr == NULL or loc.target == NULL or loc.certain == NULL or loc.seconds == NULL
                or loc.life == NULL or loc.arc == NULL):
            raise MemoryError()
        e = 0
        loc.ptr[0] = 0
        for i in range(r):
            u = visit[i]
            base = p if code[u] else 0
            for q in range(self.pair_ptr[u], self.pair_ptr[u + 1]):
                k = base + q
                if self.has[k]:
                    loc.target[e] = local[self.pair_target[q]]
                    loc.certain[e] = self.certain[k]
                    loc.seconds[e] = self.seconds[k]
                    loc.life[e] = self.life[k]
                    loc.arc[e] = self.best[k]
                    e += 1
            loc.ptr[i + 1] = e
        return 0

    cdef int64_t _weight(self, int32_t[::1] visit, Py_ssize_t n_src, Py_ssize_t r):
        cdef int64_t w = 0
        cdef Py_ssize_t i
        for i in range(n_src, r):
            w += self.weight[visit[i]]
        return w


cdef tuple _bfs(Local* loc, Py_ssize_t n_src, bint certain_only):
    """cbfs.bfs on the local CSR from the sources ``0..n_src-1``: FIFO, a node's parent is the first row (in
    FIFO order) entering it, its arc the explanation arc of that entry.  ``(parent, arc, visit)``."""
    cdef Py_ssize_t r = loc.r, head = 0, count = 0, i
    cdef int64_t u, e, t
    parent_a = np.full(r, -1, dtype=np.int64)
    arc_a = np.full(r, -1, dtype=np.int64)
    cdef int64_t[::1] parent = parent_a
    cdef int64_t[::1] arc = arc_a
    cdef int64_t[::1] out
    cdef int64_t* queue = <int64_t*>malloc((r + 1) * sizeof(int64_t))
    cdef uint8_t* seen = <uint8_t*>malloc(r + 1)
    if queue == NULL or seen == NULL:
        free(queue)
        free(seen)
        raise MemoryError()
    try:
        for i in range(r):
            seen[i] = 0
        for i in range(n_src):
            seen[i] = 1
            queue[count] = i
            count += 1
        while head < count:
            u = queue[head]
            head += 1
            for e in range(loc.ptr[u], loc.ptr[u + 1]):
                if certain_only and not loc.certain[e]:
                    continue
                t = loc.target[e]
                if seen[t]:
                    continue
                seen[t] = 1
                parent[t] = u
                arc[t] = loc.arc[e]
                queue[count] = t
                count += 1
        visit_a = np.empty(count, dtype=np.int64)
        out = visit_a
        for i in range(count):
            out[i] = queue[i]
    finally:
        free(queue)
        free(seen)
    return parent_a, arc_a, visit_a


cdef tuple _widths(Local* loc, Py_ssize_t n_src):
    """cbfs.widths: widths in decreasing order; inside width ``w`` a FIFO search from the seeds over the entries
    lasting at least ``w`` into nodes without a width; an entry lasting less waits (pending, in the order met)
    for its own width, whose seeds are the first pending entry into each node.  ``(width, label)``."""
    cdef Py_ssize_t r = loc.r, head = 0, count = 0, i, kept
    cdef int64_t u, e, t
    cdef double level = INFINITY, secs
    width_a = np.full(r, -1.0, dtype=np.float64)
    label_a = np.zeros(r, dtype=np.int8)
    cdef double[::1] width = width_a
    cdef int8_t[::1] label = label_a
    cdef int64_t* queue = <int64_t*>malloc((r + 1) * sizeof(int64_t))
    cdef Buf pending = Buf(NULL, 0, 0)
    if queue == NULL:
        raise MemoryError()
    try:
        for i in range(n_src):
            width[i] = INFINITY
            queue[count] = i
            count += 1
        while True:
            while head < count:
                u = queue[head]
                head += 1
                for e in range(loc.ptr[u], loc.ptr[u + 1]):
                    t = loc.target[e]
                    if width[t] >= 0:
                        continue
                    secs = loc.seconds[e]
                    if secs < level:
                        buf_push(&pending, e)
                        continue
                    width[t] = level
                    label[t] = loc.life[e] if secs == level else label[u]
                    queue[count] = t
                    count += 1
            kept = 0  # the pending entries into nodes still without a width, in order
            level = -1.0
            for i in range(pending.size):
                e = pending.data[i]
                if width[loc.target[e]] < 0:
                    pending.data[kept] = e
                    kept += 1
                    if loc.seconds[e] > level:
                        level = loc.seconds[e]
            pending.size = kept
            if kept == 0:
                break
            kept = 0  # the entries of the new width seed it (first one per node); the others keep waiting
            for i in range(pending.size):
                e = pending.data[i]
                if loc.seconds[e] == level:
                    t = loc.target[e]
                    if width[t] < 0:
                        width[t] = level
                        label[t] = loc.life[e]
                        queue[count] = t
                        count += 1
                else:
                    pending.data[kept] = e
                    kept += 1
            pending.size = kept
    finally:
        free(queue)
        free(pending.data)
    return width_a, label_a
