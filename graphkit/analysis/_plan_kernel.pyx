# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The revocation plan's array passes in C (see :mod:`graphkit.analysis.plan.fast`, the loop that calls them).

One :class:`Plan` per plan holds the incident's arcs as the fast loop keeps them (``m`` arcs ``src -> tgt``, the
virtual node ``via`` each passes in the dominator graph or -1, CSRs by source, by target and by virtual node;
``n`` real nodes, ``N = root + 1`` dominator-graph nodes) and two per-node scratch masks handed back clean after
every call.  Its methods replace, with the same results, the numpy passes of ``fast.py``:

- :meth:`Plan.reach`: the reached set (``fast._reach``), a FIFO search;
- :meth:`Plan.tree`: the dominator tree of the live reached dominator graph (``fast._tree``, which builds the
  same graph for rustworkx): the graph as CSRs of successors and predecessors straight from the masks, one
  iterative depth-first search for a preorder and its tree, then SNCA (semidominators by Lengauer-Tarjan's eval
  and link with path compression, immediate dominators as nearest common ancestors: L. Georgiadis, R. E. Tarjan,
  R. F. Werneck, "Finding dominators in practice", JGAA 10(1), 2006; one pass instead of Cooper-Harvey-Kennedy's
  rounds, 4 at 10^6 edges), then the subtree weights (children before parents in reverse preorder) and the
  children lists (by parent, children in index order).  Immediate dominators are unique, so the tree is
  rustworkx's;
- :meth:`Plan.minted`: ``fast._minted`` (which pending session revocations something still mints);
- :meth:`Plan.cut`: ``fast._cut_in_place`` (the cut subtree, ``fast._kept``'s check, the kept tree's update).
"""

from libc.stdint cimport int64_t, uint8_t

import numpy as np

#: the interface graphkit.analysis.plan.fast was written against: it uses this module only when equal
API = 1


cdef class Plan:
    """The incident's arcs and the scratch of one plan (arguments: ``fast._Static``'s arrays, int64 and the
    masks as uint8 views)."""

    cdef const int64_t[::1] src, tgt, via, out_ptr, in_ptr, in_arc, via_ptr, via_arc, seeds, weight
    cdef const uint8_t[::1] is_seed, seedy
    cdef int64_t n, root, m
    cdef uint8_t[::1] in_r, mark
    cdef int64_t[::1] buf, heads

    def __init__(self, src, tgt, via, out_ptr, in_ptr, in_arc, via_ptr, via_arc, seeds, weight, is_seed, seedy,
                 int64_t n, int64_t root):
        self.src, self.tgt, self.via = src, tgt, via
        self.out_ptr, self.in_ptr, self.in_arc, self.via_ptr, self.via_arc = out_ptr, in_ptr, in_arc, via_ptr, via_arc
        self.seeds, self.weight, self.is_seed, self.seedy = seeds, weight, is_seed, seedy
        self.n, self.root, self.m = n, root, src.shape[0]
        if out_ptr.shape[0] != n + 1 or in_ptr.shape[0] != n + 1 or via_ptr.shape[0] != root - n + 1:
            raise ValueError("plan kernel: CSR pointers do not match the node counts")
        self.in_r = np.zeros(root + 1, dtype=np.uint8)
        self.mark = np.zeros(root + 1, dtype=np.uint8)
        self.buf = np.empty(root + 1, dtype=np.int64)
        self.heads = np.empty(root + 1, dtype=np.int64)

    def reach(self, const uint8_t[::1] alive, const uint8_t[::1] dead):
        """(n,) bool: the nodes reached from the live seeds over live arcs into valid nodes.  O(V + E)."""
        out = np.zeros(self.n, dtype=np.bool_)
        cdef uint8_t[::1] seen = out.view(np.uint8)
        cdef int64_t[::1] queue = self.buf
        cdef int64_t head = 0, tail = 0, i, v, a, t
        with nogil:
            for i in range(self.seeds.shape[0]):
                v = self.seeds[i]
                if not dead[v] and not seen[v]:
                    seen[v] = 1
                    queue[tail] = v
                    tail += 1
            while head < tail:
                v = queue[head]
                head += 1
                for a in range(self.out_ptr[v], self.out_ptr[v + 1]):
                    if alive[a]:
                        t = self.tgt[a]
                        if not seen[t] and not dead[t]:
                            seen[t] = 1
                            queue[tail] = t
                            tail += 1
        return out

    def minted(self, const int64_t[::1] subjects, const uint8_t[::1] alive, const uint8_t[::1] reached):
        """(k,) bool: whether a live arc from a reached node other than itself still enters each subject
        (``fast._minted``).  O(the subjects' in-degrees), each scan stopping at the first such arc."""
        out = np.zeros(subjects.shape[0], dtype=np.bool_)
        cdef uint8_t[::1] res = out.view(np.uint8)
        cdef int64_t i, b, a, v, u
        with nogil:
            for i in range(subjects.shape[0]):
                v = subjects[i]
                for b in range(self.in_ptr[v], self.in_ptr[v + 1]):
                    a = self.in_arc[b]
                    u = self.src[a]
                    if alive[a] and reached[u] and u != v:
                        res[i] = 1
                        break
        return out

    def tree(self, const uint8_t[::1] alive, const uint8_t[::1] reached, const uint8_t[::1] dead):
        """The dominator tree of the live reached dominator graph from the root: ``(idom, subw, kids_ptr, kids)``,
        (N,), (N,), (N + 1,), (k,) int64 as ``fast._tree`` makes them (idom -1 for the root and the nodes off the
        tree).  O((V + E) log V) at worst, near-linear in practice (SNCA)."""
        cdef int64_t total = self.root + 1, n = self.n, root = self.root
        cdef int64_t a, u, v, x, i, k, cnt, sp, j, p, new, f1, f2
        sdeg_a = np.zeros(total + 1, dtype=np.int64)
        pdeg_a = np.zeros(total + 1, dtype=np.int64)
        cdef int64_t[::1] sptr = sdeg_a, pptr = pdeg_a
        cdef const int64_t[::1] src = self.src, tgt = self.tgt, via = self.via, seeds = self.seeds
        # 1. degrees, then the CSRs of successors and predecessors (root -> live seeds, then the arcs)
        for i in range(seeds.shape[0]):
            if not dead[seeds[i]]:
                sptr[root + 1] += 1
                pptr[seeds[i] + 1] += 1
        for a in range(self.m):
            u, v, x = src[a], tgt[a], via[a]
            if alive[a] and reached[u] and not dead[v] and u != v:
                if x < 0:
                    sptr[u + 1] += 1
                    pptr[v + 1] += 1
                else:
                    sptr[u + 1] += 1
                    pptr[x + 1] += 1
                    sptr[x + 1] += 1
                    pptr[v + 1] += 1
        for i in range(total):
            sptr[i + 1] += sptr[i]
            pptr[i + 1] += pptr[i]
        succ_a = np.empty(sptr[total], dtype=np.int64)
        pred_a = np.empty(pptr[total], dtype=np.int64)
        sfill_a = np.array(sdeg_a[:total])
        pfill_a = np.array(pdeg_a[:total])
        cdef int64_t[::1] succ = succ_a, pred = pred_a, sfill = sfill_a, pfill = pfill_a
        for i in range(seeds.shape[0]):
            v = seeds[i]
            if not dead[v]:
                succ[sfill[root]] = v
                sfill[root] += 1
                pred[pfill[v]] = root
                pfill[v] += 1
        for a in range(self.m):
            u, v, x = src[a], tgt[a], via[a]
            if alive[a] and reached[u] and not dead[v] and u != v:
                if x < 0:
                    succ[sfill[u]] = v
                    sfill[u] += 1
                    pred[pfill[v]] = u
                    pfill[v] += 1
                else:
                    succ[sfill[u]] = x
                    sfill[u] += 1
                    pred[pfill[x]] = u
                    pfill[x] += 1
                    succ[sfill[x]] = v
                    sfill[x] += 1
                    pred[pfill[v]] = x
                    pfill[v] += 1
        # 2. preorder of an iterative depth-first search from the root, with the DFS tree's parents (preorder
        #    numbers; pre: -1 off the tree)
        pre_a = np.full(total, -1, dtype=np.int64)
        vertex_a = np.empty(total, dtype=np.int64)
        parent_a = np.empty(total, dtype=np.int64)
        stack_a = np.empty(total, dtype=np.int64)
        at_a = np.empty(total, dtype=np.int64)
        cdef int64_t[::1] pre = pre_a, vertex = vertex_a, parent = parent_a, stack = stack_a, at = at_a
        cnt = 1
        sp = 1
        stack[0] = root
        at[0] = sptr[root]
        pre[root] = 0
        vertex[0] = root
        parent[0] = -1
        with nogil:
            while sp > 0:
                v = stack[sp - 1]
                i = at[sp - 1]
                if i < sptr[v + 1]:
                    at[sp - 1] = i + 1
                    x = succ[i]
                    if pre[x] < 0:
                        pre[x] = cnt
                        vertex[cnt] = x
                        parent[cnt] = pre[v]
                        cnt += 1
                        stack[sp] = x
                        at[sp] = sptr[x]
                        sp += 1
                else:
                    sp -= 1
        # 3. semidominators by Lengauer-Tarjan's simple eval/link (path compression), then immediate dominators as
        #    nearest common ancestors in the DFS tree: SNCA (L. Georgiadis, R. E. Tarjan, R. F. Werneck, "Finding
        #    dominators in practice", JGAA 10(1), 2006), all on preorder numbers
        semi_a = np.arange(cnt, dtype=np.int64)
        label_a = np.arange(cnt, dtype=np.int64)
        anc_a = np.full(cnt, -1, dtype=np.int64)
        dom_a = np.array(parent_a[:cnt])
        cdef int64_t[::1] semi = semi_a, label = label_a, anc = anc_a, dom = dom_a
        with nogil:
            k = cnt - 1
            while k >= 1:
                v = vertex[k]
                for j in range(pptr[v], pptr[v + 1]):
                    p = pre[pred[j]]
                    if p < 0:
                        continue
                    if anc[p] >= 0:  # eval(p): compress its path in the linked forest, then its label
                        sp = 0
                        x = p
                        while anc[anc[x]] >= 0:
                            stack[sp] = x
                            sp += 1
                            x = anc[x]
                        while sp > 0:
                            sp -= 1
                            f1 = stack[sp]
                            f2 = anc[f1]
                            if semi[label[f2]] < semi[label[f1]]:
                                label[f1] = label[f2]
                            anc[f1] = anc[f2]
                        p = label[p]
                    if semi[p] < semi[k]:
                        semi[k] = semi[p]
                anc[k] = parent[k]  # link
                k -= 1
            for k in range(1, cnt):
                new = dom[k]
                while new > semi[k]:
                    new = dom[new]
                dom[k] = new
        # 4. immediate dominators, subtree weights (children before parents: reverse preorder), children lists
        idom_a = np.full(total, -1, dtype=np.int64)
        subw_a = np.zeros(total, dtype=np.int64)
        kids_ptr_a = np.zeros(total + 1, dtype=np.int64)
        cdef int64_t[::1] idom = idom_a, subw = subw_a, kptr = kids_ptr_a
        cdef const int64_t[::1] weight = self.weight
        with nogil:
            for k in range(1, cnt):
                v = vertex[k]
                idom[v] = vertex[dom[k]]
                if v < n:
                    subw[v] = weight[v]
                kptr[idom[v] + 1] += 1
            k = cnt - 1
            while k >= 1:
                v = vertex[k]
                subw[idom[v]] += subw[v]
                k -= 1
            for i in range(total):
                kptr[i + 1] += kptr[i]
        kids_a = np.empty(kptr[total], dtype=np.int64)
        cdef int64_t[::1] kids = kids_a, kfill = np.array(kids_ptr_a[:total])
        with nogil:
            for v in range(total):
                p = idom[v]
                if p >= 0:
                    kids[kfill[p]] = v
                    kfill[p] += 1
        return idom_a, subw_a, kids_ptr_a, kids_a

    def cut(self, int64_t[::1] idom, int64_t[::1] subw, const int64_t[::1] kids_ptr, const int64_t[::1] kids,
            uint8_t[::1] gone, const uint8_t[::1] alive, const uint8_t[::1] reached, const uint8_t[::1] dead,
            int64_t subject, int64_t via_in, int64_t via_out, bint invalidates, const int64_t[::1] arcs):
        """``fast._cut_in_place`` of a non-wiping candidate on the kept tree: when ``fast._kept`` holds, the tree
        is updated in place (the subtree marked gone, with the candidate's ``via_in``; the ancestors' weights
        lowered) and the real nodes cut are returned ((k,) int64, in subtree order); else None and nothing
        changes.  O(|D| + the arcs leaving D + the exits' in-degrees + depth)."""
        cdef int64_t z = subject if invalidates or idom[subject] == via_in else via_out
        cdef int64_t n = self.n, root = self.root, nd = 0, nh = 0, head, i, a, b, u, v = 0, v2, x, h, par, s, first, w
        cdef int64_t lo, hi, idom_h
        cdef int64_t[::1] d = self.buf, heads = self.heads
        cdef uint8_t[::1] in_r = self.in_r, mark = self.mark
        cdef const int64_t[::1] src = self.src, tgt = self.tgt, via = self.via
        cdef bint kept = True, cleared
        with nogil:
            # the live subtree of z (breadth first, gone nodes skipped)
            if not gone[z] and idom[z] >= 0:
                d[0] = z
                nd = 1
                head = 0
                while head < nd:
                    v = d[head]
                    head += 1
                    for i in range(kids_ptr[v], kids_ptr[v + 1]):
                        x = kids[i]
                        if not gone[x]:
                            d[nd] = x
                            nd += 1
            for i in range(nd):
                in_r[d[i]] = 1
            in_r[via_in] = 1
            in_r[via_out] = 1
            # exits: nodes outside R that lose a live arc from R (arcs leaving D's nodes, c's own arcs)
            for i in range(nd + arcs.shape[0]):
                if i < nd:
                    v = d[i]
                    if v < n:
                        lo, hi = self.out_ptr[v], self.out_ptr[v + 1]
                    else:
                        lo, hi = self.via_ptr[v - n], self.via_ptr[v - n + 1]
                else:
                    lo, hi = -1, 0  # one arc of c: arcs[i - nd]
                for b in range(lo, hi):
                    if lo < 0:
                        a = arcs[i - nd]
                    elif v < n:
                        a = b
                    else:
                        a = self.via_arc[b]
                    u, v2, x = src[a], tgt[a], via[a]
                    if not (alive[a] and reached[u] and not dead[v2] and u != v2):
                        continue
                    if x < 0:
                        if in_r[u]:
                            nh = _mark(v2, mark, heads, nh)
                    else:
                        if in_r[u]:
                            nh = _mark(x, mark, heads, nh)
                        if in_r[x]:
                            nh = _mark(v2, mark, heads, nh)
            # each exit must keep the arc from its immediate dominator (or, under the root, arcs from two
            # distinct seeds); the root's arcs into seeds stay, virtual nodes whose arcs all enter seeds are skipped
            for i in range(nh):
                h = heads[i]
                if in_r[h] or self.seedy[h] or (h < n and self.is_seed[h]):
                    continue
                idom_h = idom[h]
                cleared = False
                first = -1
                if h < n:
                    lo, hi = self.in_ptr[h], self.in_ptr[h + 1]
                else:
                    lo, hi = self.via_ptr[h - n], self.via_ptr[h - n + 1]
                for b in range(lo, hi):
                    if h < n:
                        a = self.in_arc[b]
                        par = via[a] if via[a] >= 0 else src[a]
                    else:
                        a = self.via_arc[b]
                        par = src[a]
                    s = src[a]
                    if not (alive[a] and reached[s] and not in_r[s] and not in_r[par] and s != tgt[a]
                            and not dead[tgt[a]]):
                        continue
                    if par == idom_h:
                        cleared = True
                        break
                    if par == s and self.is_seed[s] and idom_h == root:
                        if first < 0:
                            first = s
                        elif s != first:
                            cleared = True
                            break
                if not cleared:
                    kept = False
                    break
            for i in range(nh):
                mark[heads[i]] = 0
            for i in range(nd):
                in_r[d[i]] = 0
            in_r[via_in] = 0
            in_r[via_out] = 0
        if not kept:
            return None
        out = np.empty(nd, dtype=np.int64)
        cdef int64_t[::1] cut = out
        cdef int64_t nreal = 0
        with nogil:
            for i in range(nd):
                gone[d[i]] = 1
                if d[i] < n:
                    cut[nreal] = d[i]
                    nreal += 1
            gone[via_in] = 1
            w = subw[z]
            x = idom[z]
            while x >= 0:
                subw[x] -= w
                x = idom[x]
            for i in range(nd):
                subw[d[i]] = 0
        return out[:nreal]


cdef inline int64_t _mark(int64_t v, uint8_t[::1] mark, int64_t[::1] heads, int64_t nh) noexcept nogil:
    if not mark[v]:
        mark[v] = 1
        heads[nh] = v
        nh += 1
    return nh
