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
  children lists (by parent, children in index order, and as linked lists the cuts edit).  Immediate
  dominators are unique, so the tree is rustworkx's;
- :meth:`Plan.minted`: ``fast._closed`` (which pending session revocations something still mints);
- :meth:`Plan.cut`: ``fast._cut_in_place`` (the cut subtree, ``fast._kept``'s check, the kept tree's update),
  which also repairs the tree where the check fails, when that region is small: new immediate dominators from a
  small flow graph (``docs/revocation-plan.md``, "Repairing the tree"), where numpy refuses and builds a new tree;
- :meth:`Plan.run`: the fast loop's steps while no companion can come (``fast._pop_best``, ``fast._apply``,
  ``fast._repush``), on the lazy queue it holds (:meth:`Plan.queue`, :meth:`Plan.pop`, :meth:`Plan.push`: a
  sorted run and a binary heap of ``(key, position)``, popped in ``fast._Queue``'s order) and the candidates
  handed over once (:meth:`Plan.prices`).

Also, for the front end (:mod:`graphkit.analysis.plan.arrays`): :func:`reach_arcs`, the reached set and its arcs
in one pass over the traversal snapshot (``snapshot.reach_order`` then ``arrays._unfold``), and
:func:`stable_argsort`, the front end's and the fast loop's stable sorts of bounded integer keys (a counting sort,
or least-significant-digit passes).
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, realloc

import numpy as np

#: the interface graphkit.analysis.plan.fast was written against: it uses this module only when equal
API = 8


cdef class Plan:
    """The incident's arcs and the scratch of one plan (arguments: ``fast._Static``'s arrays, int64 and the
    masks as uint8 views)."""

    cdef const int64_t[::1] src, tgt, via, out_ptr, in_ptr, in_arc, via_ptr, via_arc, seeds, weight, zof, lone
    cdef const uint8_t[::1] is_seed, seedy
    cdef int64_t n, root, m
    cdef uint8_t[::1] in_r, mark, in_a
    cdef int64_t[::1] buf, heads, fails, abuf, chain, hid, tbuf, w1, w2, w3, w4, w5
    cdef int64_t nt
    # the candidates (``prices``) and the lazy queue: a sorted run and a heap (``queue``, ``pop``, ``push``)
    cdef const int64_t[::1] p_subject, p_via_in, p_via_out, p_base, p_wptr, p_wipes, p_alo, p_ahi, p_arcs
    cdef const int64_t[::1] p_sptr, p_bysub, p_ofv, qk, qp, p_wiping, p_zroot
    cdef const uint8_t[::1] p_inv, p_own, p_pool, p_follow
    cdef int64_t shift, qat, hn, hcap
    # the companions (``companions``): the nodes that may have one pending, in id order; the position of each
    # node's companion candidate (-1: none); every candidate's phase code; scratch
    cdef const int64_t[::1] c_order, c_pos, p_phase
    cdef int64_t[::1] c_idx, todo, wit
    cdef uint8_t[::1] after
    cdef int64_t revoke
    cdef int64_t* hk
    cdef int64_t* hp

    def __init__(self, src, tgt, via, out_ptr, in_ptr, in_arc, via_ptr, via_arc, seeds, weight, is_seed, seedy,
                 zof, lone, int64_t n, int64_t root):
        self.src, self.tgt, self.via, self.zof, self.lone = src, tgt, via, zof, lone
        self.out_ptr, self.in_ptr, self.in_arc, self.via_ptr, self.via_arc = out_ptr, in_ptr, in_arc, via_ptr, via_arc
        self.seeds, self.weight, self.is_seed, self.seedy = seeds, weight, is_seed, seedy
        self.n, self.root, self.m = n, root, src.shape[0]
        if (out_ptr.shape[0] != n + 1 or in_ptr.shape[0] != n + 1 or via_ptr.shape[0] != root - n + 1
                or zof.shape[0] != n or lone.shape[0] != root + 1):
            raise ValueError("plan kernel: CSR pointers do not match the node counts")
        self.in_r = np.zeros(root + 1, dtype=np.uint8)
        self.mark = np.zeros(root + 1, dtype=np.uint8)
        self.in_a = np.zeros(root + 1, dtype=np.uint8)
        self.hid = np.full(root + 1, -1, dtype=np.int64)
        self.buf, self.heads, self.fails, self.abuf, self.chain, self.tbuf = [
            np.empty(root + 1, dtype=np.int64) for _ in range(6)]
        self.w1, self.w2, self.w3, self.w4, self.w5 = [np.empty(root + 1, dtype=np.int64) for _ in range(5)]
        self.nt = 0
        self.qk = self.qp = np.zeros(0, dtype=np.int64)
        self.c_order = self.c_pos = self.p_phase = np.zeros(0, dtype=np.int64)
        self.c_idx, self.todo = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        self.wit = np.array(in_ptr[:n], dtype=np.int64)
        self.after = np.zeros(n, dtype=np.uint8)
        self.revoke = -1

    def reach(self, const uint8_t[::1] alive, const uint8_t[::1] dead):
        """(n,) bool: the nodes reached from the live seeds over live arcs into valid nodes (:meth:`_reach_after`,
        copied out of ``after``).  O(V + E)."""
        with nogil:
            self._reach_after(alive, dead)
        return np.asarray(self.after).astype(np.bool_)

    def minted(self, const int64_t[::1] subjects, const uint8_t[::1] alive, const uint8_t[::1] reached):
        """(k,) bool: whether a live arc from a reached node other than itself still enters each subject
        (``fast._closed``).  O(the subjects' in-degrees), each scan stopping at the first such arc."""
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
        cdef int64_t a, u, v, x, i, k, cnt, p
        sdeg_a = np.zeros(total + 1, dtype=np.int64)
        pdeg_a = np.zeros(total + 1, dtype=np.int64)
        cdef int64_t[::1] sptr = sdeg_a, pptr = pdeg_a
        cdef const int64_t[::1] src = self.src, tgt = self.tgt, via = self.via, seeds = self.seeds
        cdef const int64_t[::1] zof = self.zof
        cdef uint8_t[::1] mark = self.mark
        # 1. degrees, then the CSRs of successors and predecessors (root -> live seeds, or root -> their wipe
        # group -> them; then the arcs, none into a seed: ``prices.wipe_groups``)
        for i in range(seeds.shape[0]):
            v = seeds[i]
            if not dead[v]:
                p = zof[v]
                if p < 0:
                    p = root
                elif not mark[p]:
                    mark[p] = 1
                    sptr[root + 1] += 1
                    pptr[p + 1] += 1
                sptr[p + 1] += 1
                pptr[v + 1] += 1
        for a in range(self.m):
            u, v, x = src[a], tgt[a], via[a]
            if alive[a] and reached[u] and not dead[v] and not self.is_seed[v] and u != v:
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
                p = zof[v]
                if p < 0:
                    p = root
                elif mark[p]:
                    mark[p] = 0
                    succ[sfill[root]] = p
                    sfill[root] += 1
                    pred[pfill[p]] = root
                    pfill[p] += 1
                succ[sfill[p]] = v
                sfill[p] += 1
                pred[pfill[v]] = p
                pfill[v] += 1
        for a in range(self.m):
            u, v, x = src[a], tgt[a], via[a]
            if alive[a] and reached[u] and not dead[v] and not self.is_seed[v] and u != v:
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
        # 2-3. preorder and DFS tree, then SNCA (``_snca``), on preorder numbers
        pre_a = np.full(total, -1, dtype=np.int64)
        vertex_a = np.empty(total, dtype=np.int64)
        dom_a = np.empty(total, dtype=np.int64)
        cdef int64_t[::1] pre = pre_a, vertex = vertex_a, dom = dom_a
        with nogil:
            cnt = _snca(root, sptr, succ, pptr, pred, pre, vertex, dom, self.w1, self.w2, self.w3, self.w4, self.w5)
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
        links_a = np.full((3, total), -1, dtype=np.int64)
        cdef int64_t[:, ::1] links = links_a
        with nogil:  # the same children as linked lists (first child, next and previous sibling): cut() edits them
            for v in range(total):
                for i in range(kptr[v], kptr[v + 1]):
                    x = kids[i]
                    if i == kptr[v]:
                        links[0, v] = x
                    else:
                        links[1, kids[i - 1]] = x
                        links[2, x] = kids[i - 1]
        return idom_a, subw_a, kids_ptr_a, kids_a, links_a

    cdef inline bint _live(self, int64_t a, const uint8_t[::1] alive, const uint8_t[::1] reached,
                           const uint8_t[::1] dead) noexcept nogil:
        """Arc ``a`` is in the dominator graph after the cut: live, from a reached node, into a valid one that is
        not a seed, and touching no node of ``R`` (``in_r``)."""
        cdef int64_t u = self.src[a], v = self.tgt[a], x = self.via[a]
        return (alive[a] and reached[u] and not dead[v] and not self.is_seed[v] and u != v and not self.in_r[u]
                and not self.in_r[v] and (x < 0 or not self.in_r[x]))

    def cut(self, int64_t[::1] idom, int64_t[::1] subw, int64_t[:, ::1] links, uint8_t[::1] gone,
            const uint8_t[::1] alive, const uint8_t[::1] reached, const uint8_t[::1] dead,
            int64_t subject, int64_t via_in, int64_t via_out, bint invalidates, const int64_t[::1] arcs,
            int64_t cap, int64_t zroot=-1):
        """``fast._cut_in_place`` of a candidate priced by one subtree (``zroot``: its wipe group node, else -1) on
        the kept tree (``links``: the children lists
        :meth:`tree` returned, edited here).

        The cut subtree ``D`` and the candidate's virtual nodes (``R``) go.  The exits that fail ``fast._kept``'s
        check (none: the tree is kept as it is) may change dominators, and so may what they reach; nothing else
        does (``fast._kept``).  When what the failing exits reach after the cut (``A``) has at most ``cap`` nodes,
        their immediate dominators are recomputed on a small graph (``_repair``) and the tree is edited in place:
        ``D`` and ``via_in`` marked gone, the nodes of ``A`` moved under their new parents, the subtree weights of
        their old and new ancestors and of ``A`` updated.  Returns ``(cut, touched)``: (k,) int64 real nodes cut,
        (t,) int64 nodes whose subtree may have grown or whose parent changed (``A`` and its new ancestors; empty
        when no exit failed); or None with nothing changed (``A`` too large: the caller builds a new tree).
        O(|D| + the arcs leaving D + the exits' in-degrees + depth), plus O(A's in-arcs + depth * |A|) to repair."""
        cdef int64_t nd = self._cut(idom, subw, links, gone, alive, reached, dead, subject, via_in, via_out,
                                    invalidates, arcs, 0, arcs.shape[0], cap, zroot), i, nreal = 0
        if nd < 0:
            return None
        out = np.empty(nd, dtype=np.int64)
        cdef int64_t[::1] cut = out
        for i in range(nd):
            if self.buf[i] < self.n:
                cut[nreal] = self.buf[i]
                nreal += 1
        return out[:nreal], np.array(self.tbuf[:self.nt])

    cdef int64_t _cut(self, int64_t[::1] idom, int64_t[::1] subw, int64_t[:, ::1] links, uint8_t[::1] gone,
                      const uint8_t[::1] alive, const uint8_t[::1] reached, const uint8_t[::1] dead,
                      int64_t subject, int64_t via_in, int64_t via_out, bint invalidates, const int64_t[::1] arcs,
                      int64_t alo, int64_t ahi, int64_t cap, int64_t zroot):
        """:meth:`cut` with the candidate's arcs ``arcs[alo:ahi]``: -1 (refused, nothing changed), else the size
        of ``D`` (``buf[:nd]``, virtual nodes included) with the touched nodes in ``tbuf[:nt]``."""
        cdef int64_t z = zroot if zroot >= 0 else (subject if invalidates or idom[subject] == via_in else via_out)
        cdef int64_t n = self.n, nd = 0, nh = 0, nf = 0, head, i, a, b, u, v = 0, v2, x, h, par, s, first, w
        cdef int64_t lo, hi, idom_h, na = 0, top
        cdef int64_t[::1] d = self.buf, heads = self.heads, fails = self.fails
        cdef uint8_t[::1] in_r = self.in_r, mark = self.mark
        cdef const int64_t[::1] src = self.src, tgt = self.tgt, via = self.via
        cdef bint cleared
        with nogil:
            # the live subtree of z (breadth first over the children lists)
            if not gone[z] and idom[z] >= 0:
                d[0] = z
                nd = 1
                head = 0
                while head < nd:
                    v = d[head]
                    head += 1
                    x = links[0, v]
                    while x >= 0:
                        if not gone[x]:
                            d[nd] = x
                            nd += 1
                        x = links[1, x]
            for i in range(nd):
                in_r[d[i]] = 1
            in_r[via_in] = 1
            in_r[via_out] = 1
            # exits: nodes outside R that lose a live arc from R (arcs leaving D's nodes, c's own arcs)
            for i in range(nd + ahi - alo):
                if i < nd:
                    v = d[i]
                    if v < n:
                        lo, hi = self.out_ptr[v], self.out_ptr[v + 1]
                    else:
                        lo, hi = self.via_ptr[v - n], self.via_ptr[v - n + 1]
                else:
                    lo, hi = -1, 0  # one arc of c: arcs[alo + i - nd]
                for b in range(lo, hi):
                    if lo < 0:
                        a = arcs[alo + i - nd]
                    elif v < n:
                        a = b
                    else:
                        a = self.via_arc[b]
                    u, v2, x = src[a], tgt[a], via[a]
                    if not (alive[a] and reached[u] and not dead[v2] and not self.is_seed[v2] and u != v2):
                        continue
                    if x < 0:
                        if in_r[u]:
                            nh = _mark(v2, mark, heads, nh)
                    else:
                        if in_r[u]:
                            nh = _mark(x, mark, heads, nh)
                        if in_r[x]:
                            nh = _mark(v2, mark, heads, nh)
            # each exit should keep the arc from its immediate dominator (or, under the root, arcs from two
            # seeds the root enters through distinct nodes, directly or through a virtual node only the seed enters:
            # ``lone``); the root's arcs into seeds stay, virtual nodes whose arcs all enter seeds are skipped.
            # The others fail: their dominators, and those of what they reach, are recomputed
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
                            and not dead[tgt[a]] and not self.is_seed[tgt[a]]):
                        continue
                    if par == idom_h:
                        cleared = True
                        break
                    if self.lone[par] == s and self.is_seed[s] and idom_h == self.root:
                        top = self.zof[s] if self.zof[s] >= 0 else s
                        if first < 0:
                            first = top
                        elif top != first:
                            cleared = True
                            break
                if not cleared:
                    fails[nf] = h
                    nf += 1
            for i in range(nh):
                mark[heads[i]] = 0
            # A: what the failing exits reach after the cut (closed under the arcs that stay)
            na = self._reached_from(fails, nf, cap, alive, reached, dead)
        moved = None
        if nf and na >= 0:
            moved = self._new_parents(na, idom, alive, reached, dead)
        if nf and moved is None:  # too much to repair (or, never, a node of A unreached): a new tree instead
            with nogil:
                for i in range(na if na > 0 else 0):
                    self.in_a[self.abuf[i]] = 0
                for i in range(nd):
                    in_r[d[i]] = 0
                in_r[via_in] = 0
                in_r[via_out] = 0
            return -1
        self.nt = 0
        with nogil:
            if nd:  # D's weight leaves its ancestors (the tree before A moves)
                w = subw[z]
                x = idom[z]
                while x >= 0:
                    subw[x] -= w
                    x = idom[x]
        if moved is not None:
            self._move(na, moved[0], moved[1], idom, subw, links)
        with nogil:
            for i in range(na):
                self.in_a[self.abuf[i]] = 0
            for i in range(nd):
                in_r[d[i]] = 0
                gone[d[i]] = 1
            in_r[via_in] = 0
            in_r[via_out] = 0
            if nd:
                _unlink(z, idom, links)
            if not gone[via_in] and idom[via_in] >= 0:
                _unlink(via_in, idom, links)
            gone[via_in] = 1
            for i in range(nd):
                subw[d[i]] = 0
        return nd

    # ------------------------------------------------------------------ the greedy loop's steps (fast_plan)

    def prices(self, subject, via_in, via_out, inv, own, base, pool, follow, wipes_ptr, wipes, arcs_lo, arcs_hi,
               arcs, subject_ptr, by_subject, of_virtual, zroot, int64_t shift):
        """The candidates as ``fast._Prices`` holds them (k in tie-break order: int64 ``subject``, ``via_in``,
        ``via_out``, ``base``; uint8 masks ``inv``, ``own``, ``pool`` and ``follow``, a companion follows it;
        the nodes each wipes, ``wipes[wipes_ptr[i]:wipes_ptr[i + 1]]``, and the arcs it removes,
        ``arcs[arcs_lo[i]:arcs_hi[i]]``; positions by subject and by virtual node, wipe group nodes included; int64
        ``zroot`` each one's wipe group node or -1: ``prices.wipe_groups``), for :meth:`run`."""
        self.p_subject, self.p_via_in, self.p_via_out, self.p_base = subject, via_in, via_out, base
        self.p_inv, self.p_own, self.p_pool, self.p_follow = inv, own, pool, follow
        self.p_wptr, self.p_wipes, self.p_alo, self.p_ahi, self.p_arcs = wipes_ptr, wipes, arcs_lo, arcs_hi, arcs
        self.p_sptr, self.p_bysub, self.p_ofv, self.shift = subject_ptr, by_subject, of_virtual, shift
        self.p_zroot = zroot
        self.p_wiping = np.flatnonzero(np.diff(np.asarray(wipes_ptr)) > 0).astype(np.int64)

    def companions(self, order, pos, phase, int64_t revoke):
        """What the loop needs to list companions (``fast._flush``) itself: ``order`` (int64) the nodes that may
        have one pending, in id order; ``pos`` (n,) int64 the position of each node's companion candidate (-1:
        none); ``phase`` (k,) int64 every candidate's phase code; ``revoke`` the companion's action code."""
        cdef int64_t i
        self.c_order, self.c_pos, self.p_phase, self.revoke = order, pos, phase, revoke
        for i in range(self.c_order.shape[0]):
            self.c_idx[self.c_order[i]] = i

    cdef inline bint _minted1(self, int64_t v, const uint8_t[::1] alive, const uint8_t[::1] reached) noexcept nogil:
        """Whether a live arc from a reached node other than ``v`` enters ``v`` (:meth:`minted` of one node), for
        :meth:`run`'s states only: in one plan arcs only die and nodes only leave the reached set, so an in-arc
        that failed once fails for good, and the scan resumes at the last arc that held (``wit``): O(in-degree)
        per node over the whole plan."""
        cdef int64_t b = self.wit[v], hi = self.in_ptr[v + 1], a, u
        while b < hi:
            a = self.in_arc[b]
            u = self.src[a]
            if alive[a] and reached[u] and u != v:
                self.wit[v] = b
                return True
            b += 1
        self.wit[v] = hi
        return False

    cdef int64_t _todo(self, int64_t start, int64_t nt, const int8_t[::1] pend, const uint8_t[::1] alive,
                       const uint8_t[::1] reached, bint closed_only) noexcept nogil:
        """Append to ``todo[:nt]`` the pending nodes nothing mints (every pending node unless ``closed_only``),
        from ``c_order[start]`` on (id order)."""
        cdef int64_t i, v
        for i in range(start, self.c_order.shape[0]):
            v = self.c_order[i]
            if pend[v] >= 0 and not (closed_only and self._minted1(v, alive, reached)):
                self.todo[nt] = v
                nt += 1
        return nt

    cdef int64_t _reach_after(self, const uint8_t[::1] alive, const uint8_t[::1] dead) noexcept nogil:
        """:meth:`reach` into ``after`` (cleared first); returns the reached weight."""
        cdef uint8_t[::1] seen = self.after
        cdef int64_t[::1] queue = self.buf
        cdef int64_t head = 0, tail = 0, i, v, a, t, w = 0
        for i in range(self.n):
            seen[i] = 0
        for i in range(self.seeds.shape[0]):
            v = self.seeds[i]
            if not dead[v] and not seen[v]:
                seen[v] = 1
                queue[tail] = v
                tail += 1
        while head < tail:
            v = queue[head]
            head += 1
            w += self.weight[v]
            for a in range(self.out_ptr[v], self.out_ptr[v + 1]):
                if alive[a]:
                    t = self.tgt[a]
                    if not seen[t] and not dead[t]:
                        seen[t] = 1
                        queue[tail] = t
                        tail += 1
        return w

    cdef int64_t _flush(self, int8_t[::1] pend, uint8_t[::1] followed, uint8_t[::1] alive, uint8_t[::1] reached,
                        const uint8_t[::1] dead, uint8_t[::1] applied, int64_t* residual, int64_t* done,
                        int64_t steps, int64_t[:, ::1] out, int64_t[::1] cut_ptr, int64_t[::1] cut,
                        int64_t* nstep, int64_t* npend, bint closed_only) noexcept nogil:
        """``fast._flush(only_closed=closed_only)``: the pending companions nothing mints (every pending one unless
        ``closed_only``), in id order, each a step (a session revocation); returns 1 when one removed a live arc
        (the reached set was recomputed: the tree is stale), else 0.  ``npend``: how many are pending (kept up to
        date)."""
        cdef int64_t nt = self._todo(0, 0, pend, alive, reached, closed_only), at = 0, v, pos, a, i, ph, w, nc
        cdef int64_t stale = 0
        cdef bint live
        while at < nt:
            if done[0] >= steps:
                return stale
            v = self.todo[at]
            at += 1
            ph = pend[v]
            pend[v] = -1
            npend[0] -= 1
            followed[v] = 1
            pos = self.c_pos[v]
            live = False
            if pos >= 0:
                applied[pos] = 1
                for i in range(self.p_alo[pos], self.p_ahi[pos]):
                    a = self.p_arcs[i]
                    if alive[a] and reached[self.src[a]] and not dead[self.tgt[a]] and self.src[a] != self.tgt[a]:
                        live = True
                    alive[a] = 0
            nc = cut_ptr[nstep[0]]
            if live:
                w = self._reach_after(alive, dead)
                for i in range(self.n):
                    if reached[i] and not self.after[i]:
                        cut[nc] = i
                        nc += 1
                    reached[i] = self.after[i]
            else:
                w = residual[0]
            out[0, nstep[0]], out[1, nstep[0]], out[2, nstep[0]] = -1, residual[0] - w, w
            out[3, nstep[0]], out[4, nstep[0]] = v, ph
            residual[0] = w
            nstep[0] += 1
            cut_ptr[nstep[0]] = nc
            done[0] += 1
            if live:
                stale = 1
                if npend[0] and closed_only:  # what the next ones (after this one in id order) see
                    nt = self._todo(self.c_idx[v] + 1, at, pend, alive, reached, True)
        return stale

    def flush(self, bint closed_only, uint8_t[::1] alive, uint8_t[::1] reached, uint8_t[::1] dead,
              uint8_t[::1] applied, int64_t residual, int64_t steps, int64_t[:, ::1] out, int64_t[::1] cut_ptr,
              int64_t[::1] cut, int64_t nstep, int8_t[::1] pend, uint8_t[::1] followed):
        """``fast._flush(only_closed=closed_only)`` for the Python loop: the pending companions (:meth:`run`'s
        ``pend``, ``followed``) nothing mints, or every one at the plan's end, in id order, each a step in ``out``
        from step ``nstep`` on, at most ``steps`` of them.  Returns ``(stale, nstep, residual)``: stale 1 when one
        removed a live arc (the reached set was recomputed: the tree is stale)."""
        cdef int64_t done = 0, npend = 0, i, stale = 0
        for i in range(self.c_order.shape[0]):
            npend += pend[self.c_order[i]] >= 0
        if npend:
            stale = self._flush(pend, followed, alive, reached, dead, applied, &residual, &done, steps, out, cut_ptr,
                                cut, &nstep, &npend, closed_only)
        return stale, nstep, residual

    def queue(self, keys, poss):
        """Start the lazy queue (``fast._Queue``): ``keys`` and ``poss`` (int64) sorted, an empty heap."""
        self.qk, self.qp, self.qat, self.hn = keys, poss, 0, 0

    def pop(self):
        """The smallest ``(key, pos)`` of the queue, or None."""
        cdef int64_t key, pos
        if self._qpop(&key, &pos):
            return key, pos
        return None

    def push(self, int64_t key, int64_t pos):
        self._hpush(key, pos)

    cdef bint _qpop(self, int64_t* key, int64_t* pos) noexcept:
        if self.qat < self.qk.shape[0] and (self.hn == 0 or _less(self.qk[self.qat], self.qp[self.qat], self.hk[0],
                                                                   self.hp[0])):
            key[0], pos[0] = self.qk[self.qat], self.qp[self.qat]
            self.qat += 1
            return True
        if self.hn == 0:
            return False
        key[0], pos[0] = self.hk[0], self.hp[0]
        self.hn -= 1
        cdef int64_t i = 0, c, k = self.hk[self.hn], p = self.hp[self.hn], n = self.hn
        while True:  # sift the last item down from the top
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and _less(self.hk[c + 1], self.hp[c + 1], self.hk[c], self.hp[c]):
                c += 1
            if not _less(self.hk[c], self.hp[c], k, p):
                break
            self.hk[i], self.hp[i] = self.hk[c], self.hp[c]
            i = c
        if n:
            self.hk[i], self.hp[i] = k, p
        return True

    cdef int _hpush(self, int64_t key, int64_t pos) except -1:
        cdef int64_t i, up, cap
        if self.hn == self.hcap:
            cap = 2 * self.hcap + 64
            self.hk = <int64_t*> _grow(self.hk, cap)
            self.hp = <int64_t*> _grow(self.hp, cap)
            self.hcap = cap
        i = self.hn
        self.hn += 1
        while i > 0:
            up = (i - 1) // 2
            if not _less(key, pos, self.hk[up], self.hp[up]):
                break
            self.hk[i], self.hp[i] = self.hk[up], self.hp[up]
            i = up
        self.hk[i], self.hp[i] = key, pos
        return 0

    cdef inline bint _trial(self, int64_t pos, const uint8_t[::1] dead) noexcept nogil:
        """``fast._trial``: the candidate wipes nodes still valid and has no wipe group."""
        cdef int64_t i
        if self.p_zroot[pos] >= 0:
            return False
        for i in range(self.p_wptr[pos], self.p_wptr[pos + 1]):
            if not dead[self.p_wipes[i]]:
                return True
        return False

    cdef inline int64_t _red(self, int64_t pos, const int64_t[::1] idom, const int64_t[::1] subw) noexcept nogil:
        """A reduction on the tree (``fast._reduction``) of a candidate without a trial."""
        cdef int64_t s = self.p_subject[pos]
        if self.p_zroot[pos] >= 0:
            return subw[self.p_zroot[pos]]
        if self.p_inv[pos] or idom[s] == self.p_via_in[pos]:
            return subw[s]
        return subw[self.p_via_out[pos]]

    cdef inline bint _key(self, int64_t pos, int64_t red, const uint8_t[::1] dead, int64_t* key) noexcept nogil:
        """``fast._key``: False when not eligible."""
        cdef bint own = self.p_own[pos] and not dead[self.p_subject[pos]]
        if red <= 0 and not own:
            return False
        key[0] = ((self.p_base[pos] + (0 if own else 2)) << self.shift) - red
        return True

    cdef int _repush(self, const int64_t[::1] idom, const int64_t[::1] subw, const uint8_t[::1] dead,
                     const uint8_t[::1] applied, int64_t residual) except -1:
        """``fast._repush`` of the touched nodes (``tbuf[:nt]``), then of every wiping candidate without a wipe group
        (its reduction is no subtree: it may grow wherever dominators changed)."""
        cdef int64_t i, j, t, pos, lo, hi, key, red, n = self.n
        for i in range(self.nt):
            t = self.tbuf[i]
            if t < n:
                lo, hi = self.p_sptr[t], self.p_sptr[t + 1]
            elif t < self.root:
                lo, hi = -1, 0
            else:
                continue
            for j in range(lo, hi):
                pos = self.p_ofv[t - n] if lo < 0 else self.p_bysub[j]
                if applied[pos] or not self.p_pool[pos]:
                    continue
                red = residual if self._trial(pos, dead) else self._red(pos, idom, subw)
                if self._key(pos, red, dead, &key):
                    self._hpush(key, pos)
        for i in range(self.p_wiping.shape[0]):
            pos = self.p_wiping[i]
            if applied[pos] or not self.p_pool[pos] or not self._trial(pos, dead):
                continue
            if self._key(pos, residual, dead, &key):
                self._hpush(key, pos)
        return 0

    def repush(self, const int64_t[::1] idom, const int64_t[::1] subw, const uint8_t[::1] dead,
               const uint8_t[::1] applied, int64_t residual):
        """``fast._repush`` on the queue held here, of the nodes the last :meth:`cut` touched (its ``touched``)."""
        self._repush(idom, subw, dead, applied, residual)

    def run(self, int64_t[::1] idom, int64_t[::1] subw, int64_t[:, ::1] links, uint8_t[::1] gone,
            uint8_t[::1] alive, uint8_t[::1] reached, uint8_t[::1] dead, uint8_t[::1] applied, int64_t residual,
            int64_t steps, int64_t cap, int64_t[:, ::1] out, int64_t[::1] cut_ptr, int64_t[::1] cut, int64_t nstep,
            int8_t[::1] pend, uint8_t[::1] followed):
        """``fast_plan``'s steps on the kept tree, at most ``steps`` of them, while each is a candidate priced by one subtree
        without a companion whose cut keeps or repairs the tree: the lazy queue's top re-priced and taken when its
        key holds (``fast._pop_best``), applied (``fast._apply``: the cut, its arcs, its subject invalidated),
        candidates queued again after a repair (``fast._repush``).  Step ``i`` goes to ``out[:, i]`` (position,
        reduction, residual after it) and its real nodes cut to ``cut[cut_ptr[i]:cut_ptr[i + 1]]``, from step
        ``nstep`` on.  Returns ``(status, nstep, residual)``: status 0, stopped (``steps`` taken, or the residual
        is 0); 1, the queue's top is for ``fast._pop_best`` (a wiping candidate without a wipe group, one with a companion, or a cut
        that needs a new tree; it stays in the queue); 2, the queue is empty; 3, a companion changed the reached
        set (the tree is stale).

        With :meth:`companions` set, candidates with a companion are taken here too: the companion is pending
        (``pend``: per node its phase code, -1: none; ``followed``: listed already) and, after every step, the
        pending ones nothing mints are listed as steps (``fast._flush``; ``out[0]`` is -1, ``out[3]`` the subject,
        ``out[4]`` the phase code)."""
        cdef int64_t done = 0, key, pos, red, fresh, nd, i, v, s, n = self.n, nc = cut_ptr[nstep], npend = 0, stale
        cdef bint with_companions = self.revoke >= 0
        if with_companions:
            for i in range(self.c_order.shape[0]):
                npend += pend[self.c_order[i]] >= 0
        while done < steps and residual > 0:
            if not self._qpop(&key, &pos):
                return 2, nstep, residual
            if applied[pos]:
                continue
            if self._trial(pos, dead):
                self._hpush(key, pos)
                return 1, nstep, residual
            red = self._red(pos, idom, subw)
            if not self._key(pos, red, dead, &fresh):
                continue
            if fresh != key:
                self._hpush(fresh, pos)
                continue
            s = self.p_subject[pos]
            if self.p_follow[pos] and not with_companions:
                self._hpush(key, pos)
                return 1, nstep, residual
            nd = self._cut(idom, subw, links, gone, alive, reached, dead, s, self.p_via_in[pos],
                           self.p_via_out[pos], self.p_inv[pos], self.p_arcs, self.p_alo[pos], self.p_ahi[pos], cap,
                           self.p_zroot[pos])
            if nd < 0:
                self._hpush(key, pos)
                return 1, nstep, residual
            applied[pos] = 1
            for i in range(self.p_alo[pos], self.p_ahi[pos]):
                alive[self.p_arcs[i]] = 0
            if self.p_inv[pos]:
                dead[s] = 1
                for i in range(self.p_wptr[pos], self.p_wptr[pos + 1]):  # a wipe group's nodes go with it
                    dead[self.p_wipes[i]] = 1
            for i in range(nd):
                v = self.buf[i]
                if v < n:
                    reached[v] = 0
                    cut[nc] = v
                    nc += 1
            residual -= red
            out[0, nstep], out[1, nstep], out[2, nstep] = pos, red, residual
            out[3, nstep], out[4, nstep] = s, -1
            nstep += 1
            cut_ptr[nstep] = nc
            done += 1
            if self.nt:
                self._repush(idom, subw, dead, applied, residual)
            if not with_companions:
                continue
            if self.p_follow[pos] and not followed[s] and pend[s] < 0:
                pend[s] = self.p_phase[pos]
                npend += 1
            elif self.p_follow[pos] and not followed[s]:
                pend[s] = self.p_phase[pos]
            if npend:
                stale = self._flush(pend, followed, alive, reached, dead, applied, &residual, &done, steps, out,
                                    cut_ptr, cut, &nstep, &npend, True)
                nc = cut_ptr[nstep]
                if stale:
                    return 3, nstep, residual
        return 0, nstep, residual

    def __dealloc__(self):
        free(self.hk)
        free(self.hp)

    cdef int64_t _reached_from(self, int64_t[::1] starts, int64_t ns, int64_t cap, const uint8_t[::1] alive,
                               const uint8_t[::1] reached, const uint8_t[::1] dead) noexcept nogil:
        """Mark (``in_a``) and list (``abuf``) the nodes the dominator graph after the cut reaches from
        ``starts[:ns]``; their number, or -1 (no mark left) when they are more than ``cap``."""
        cdef int64_t na = 0, head = 0, i, v, a, b, t, lo, hi, n = self.n
        cdef int64_t[::1] abuf = self.abuf
        cdef uint8_t[::1] in_a = self.in_a
        for i in range(ns):
            v = starts[i]
            if not in_a[v]:
                if na == cap:
                    for i in range(na):
                        in_a[abuf[i]] = 0
                    return -1
                in_a[v] = 1
                abuf[na] = v
                na += 1
        while head < na:
            v = abuf[head]
            head += 1
            if v < n:
                lo, hi = self.out_ptr[v], self.out_ptr[v + 1]
            else:
                lo, hi = self.via_ptr[v - n], self.via_ptr[v - n + 1]
            for b in range(lo, hi):
                a = b if v < n else self.via_arc[b]
                if not self._live(a, alive, reached, dead):
                    continue
                t = self.via[a] if v < n and self.via[a] >= 0 else self.tgt[a]
                if not in_a[t]:
                    if na == cap:
                        for i in range(na):
                            in_a[abuf[i]] = 0
                        return -1
                    in_a[t] = 1
                    abuf[na] = t
                    na += 1
        return na

    cdef object _new_parents(self, int64_t na, const int64_t[::1] idom,
                        const uint8_t[::1] alive, const uint8_t[::1] reached, const uint8_t[::1] dead):
        """The new immediate dominators of ``A`` (``abuf[:na]``, marked ``in_a``): ``(parent, order)``, (na,)
        int64 the new parent of each and (na,) int64 ``A`` in an order with parents before children; or None (a
        node of ``A`` unreached: never, the cut's own subtree is all that goes).

        ``H``: the root, ``A``, and the tree paths from the root to every node outside ``A`` with an arc into
        ``A`` (its *entries*), with the tree's arcs on those paths and the arcs into ``A`` (``A`` holds no seed:
        no arc of the dominator graph enters one but the root's or its wipe group's).  Nodes outside ``A`` keep their dominators (``fast._kept``), so a path avoiding
        ``x`` reaches an entry ``w`` iff ``x`` is not on ``w``'s tree path, and nothing leaves ``A`` (it is closed):
        the dominators of ``A`` in ``H`` are those after the cut.  An entry from a virtual node whose arcs all
        enter seeds (its parent may be stale) is left out: the root's arc into that seed makes it redundant."""
        cdef int64_t n = self.n, root = self.root, nn, nc = 0, cnt, ne = 0, i, j, b, a, y, par, x, w, lo, hi
        cdef int64_t[::1] abuf = self.abuf, hid = self.hid, chain = self.chain
        cdef uint8_t[::1] in_a = self.in_a
        cdef const int64_t[::1] weight = self.weight
        # H's nodes: the root (0), A (1..na), the entries' tree paths (after)
        hid[root] = 0
        for i in range(na):
            hid[abuf[i]] = 1 + i
        nn = 1 + na
        for i in range(na):
            y = abuf[i]
            if y < n:
                lo, hi = self.in_ptr[y], self.in_ptr[y + 1]
            else:
                lo, hi = self.via_ptr[y - n], self.via_ptr[y - n + 1]
            ne += hi - lo
            for b in range(lo, hi):
                a = self.in_arc[b] if y < n else self.via_arc[b]
                par = self.via[a] if y < n and self.via[a] >= 0 else self.src[a]
                if in_a[par] or self.seedy[par] or not self._live(a, alive, reached, dead):
                    continue
                x = par
                while hid[x] < 0:
                    hid[x] = nn
                    chain[nc] = x
                    nn += 1
                    nc += 1
                    x = idom[x]
        ne += nc
        hs_a = np.empty(ne, dtype=np.int64)
        ht_a = np.empty(ne, dtype=np.int64)
        cdef int64_t[::1] hs = hs_a, ht = ht_a
        ne = 0
        for i in range(nc):
            x = chain[i]
            hs[ne] = hid[idom[x]]
            ht[ne] = hid[x]
            ne += 1
        for i in range(na):
            y = abuf[i]
            if y < n:
                lo, hi = self.in_ptr[y], self.in_ptr[y + 1]
            else:
                lo, hi = self.via_ptr[y - n], self.via_ptr[y - n + 1]
            for b in range(lo, hi):
                a = self.in_arc[b] if y < n else self.via_arc[b]
                par = self.via[a] if y < n and self.via[a] >= 0 else self.src[a]
                if (not in_a[par] and self.seedy[par]) or not self._live(a, alive, reached, dead):
                    continue
                hs[ne] = hid[par]
                ht[ne] = 1 + i
                ne += 1
        node_a = np.empty(nn, dtype=np.int64)
        cdef int64_t[::1] node = node_a
        node[0] = root
        for i in range(na):
            node[1 + i] = abuf[i]
        for i in range(nc):
            node[1 + na + i] = chain[i]
        for i in range(nn):
            hid[node[i]] = -1
        sptr_a, succ_a, pptr_a, pred_a = _csr(nn, hs_a[:ne], ht_a[:ne])
        pre_a = np.full(nn, -1, dtype=np.int64)
        vertex_a = np.empty(nn, dtype=np.int64)
        dom_a = np.empty(nn, dtype=np.int64)
        cdef int64_t[::1] sptr = sptr_a, succ = succ_a, pptr = pptr_a, pred = pred_a
        cdef int64_t[::1] pre = pre_a, vertex = vertex_a, dom = dom_a
        with nogil:
            cnt = _snca(0, sptr, succ, pptr, pred, pre, vertex, dom, self.w1, self.w2, self.w3, self.w4, self.w5)
        for i in range(na):
            if pre[1 + i] < 0:  # pragma: no cover - the cut's own subtree is all that goes (dominators)
                return None
        par_a = np.empty(na, dtype=np.int64)
        order_a = np.empty(na, dtype=np.int64)
        cdef int64_t[::1] newpar = par_a, order = order_a
        j = 0
        for i in range(1, cnt):
            y = node[vertex[i]]
            if in_a[y]:
                order[j] = y
                j += 1
        for i in range(na):
            newpar[i] = node[vertex[dom[pre[1 + i]]]]
        return par_a, order_a

    cdef void _move(self, int64_t na, const int64_t[::1] newpar, const int64_t[::1] order, int64_t[::1] idom,
                    int64_t[::1] subw, int64_t[:, ::1] links):
        """Move ``A`` (``abuf[:na]``) under its new parents ``newpar`` (``order``: parents before children),
        subtree weights and children lists updated; the nodes touched (``tbuf[:nt]``): ``A`` and its new ancestors
        outside it."""
        cdef int64_t n = self.n, i, j, y, x, w, par
        cdef int64_t[::1] abuf = self.abuf
        cdef uint8_t[::1] in_a = self.in_a
        cdef const int64_t[::1] weight = self.weight

        # subtree weights: A's contributions leave its old ancestors outside A
        for i in range(na):
            y = abuf[i]
            w = weight[y] if y < n else 0
            x = idom[y]
            while w and x >= 0:
                if not in_a[x]:
                    subw[x] -= w
                x = idom[x]
        # new parents (H's immediate dominators), children lists edited
        for i in range(na):
            _unlink(abuf[i], idom, links)
        for i in range(na):
            idom[abuf[i]] = newpar[i]
        for i in range(na):
            y = abuf[i]
            par = idom[y]
            x = links[0, par]
            links[0, par] = y
            links[2, y] = -1
            links[1, y] = x
            if x >= 0:
                links[2, x] = y
        # ... and join their new ancestors outside A; A's own from H's tree (children before parents)
        cdef int64_t[::1] touched = self.tbuf
        cdef int64_t nt = 0
        for i in range(na):
            y = abuf[i]
            touched[nt] = y
            nt += 1
            w = weight[y] if y < n else 0
            x = idom[y]
            while x >= 0:
                if not in_a[x]:
                    subw[x] += w
                    if not self.mark[x]:
                        self.mark[x] = 1
                        touched[nt] = x
                        nt += 1
                x = idom[x]
        for i in range(nt):
            self.mark[touched[i]] = 0
        self.nt = nt
        for i in range(na):
            y = abuf[i]
            subw[y] = weight[y] if y < n else 0
        j = na - 1
        while j >= 0:
            y = order[j]
            if in_a[idom[y]]:
                subw[idom[y]] += subw[y]
            j -= 1


_NONE = np.zeros(0, dtype=np.int64)


cdef inline bint _less(int64_t k1, int64_t p1, int64_t k2, int64_t p2) noexcept nogil:
    return k1 < k2 or (k1 == k2 and p1 < p2)


cdef void* _grow(void* block, int64_t count) except NULL:
    cdef void* out = realloc(block, count * sizeof(int64_t))
    if out == NULL:
        raise MemoryError("plan kernel: queue")
    return out


cdef inline int64_t _mark(int64_t v, uint8_t[::1] mark, int64_t[::1] heads, int64_t nh) noexcept nogil:
    if not mark[v]:
        mark[v] = 1
        heads[nh] = v
        nh += 1
    return nh


cdef inline void _unlink(int64_t v, const int64_t[::1] idom, int64_t[:, ::1] links) noexcept nogil:
    """Take ``v`` out of its parent's children list."""
    cdef int64_t nx = links[1, v], pv = links[2, v]
    if pv >= 0:
        links[1, pv] = nx
    elif idom[v] >= 0 and links[0, idom[v]] == v:
        links[0, idom[v]] = nx
    if nx >= 0:
        links[2, nx] = pv
    links[1, v] = -1
    links[2, v] = -1


def _csr(int64_t nn, const int64_t[::1] hs, const int64_t[::1] ht):
    """Successor and predecessor CSRs ``(sptr, succ, pptr, pred)`` of ``nn`` nodes and the arcs ``hs -> ht``."""
    cdef int64_t i, m = hs.shape[0]
    sptr_a = np.zeros(nn + 1, dtype=np.int64)
    pptr_a = np.zeros(nn + 1, dtype=np.int64)
    succ_a = np.empty(m, dtype=np.int64)
    pred_a = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] sptr = sptr_a, pptr = pptr_a, succ = succ_a, pred = pred_a
    for i in range(m):
        sptr[hs[i] + 1] += 1
        pptr[ht[i] + 1] += 1
    for i in range(nn):
        sptr[i + 1] += sptr[i]
        pptr[i + 1] += pptr[i]
    sf = np.array(sptr_a[:nn])
    pf = np.array(pptr_a[:nn])
    cdef int64_t[::1] sfill = sf, pfill = pf
    for i in range(m):
        succ[sfill[hs[i]]] = ht[i]
        sfill[hs[i]] += 1
        pred[pfill[ht[i]]] = hs[i]
        pfill[ht[i]] += 1
    return sptr_a, succ_a, pptr_a, pred_a


cdef int64_t _snca(int64_t root, const int64_t[::1] sptr, const int64_t[::1] succ, const int64_t[::1] pptr,
                   const int64_t[::1] pred, int64_t[::1] pre, int64_t[::1] vertex, int64_t[::1] dom,
                   int64_t[::1] parent, int64_t[::1] stack, int64_t[::1] at, int64_t[::1] semi,
                   int64_t[::1] label) noexcept nogil:
    """Immediate dominators from ``root`` of the graph given as CSRs: ``pre`` (preset -1) gets every reached
    node's preorder number, ``vertex`` the node of each number, ``dom`` the immediate dominator's number (of
    numbers 1..); returns the number of reached nodes.  An iterative depth-first search for the preorder and its
    tree, then SNCA: semidominators by Lengauer-Tarjan's eval and link with path compression, immediate
    dominators as nearest common ancestors (L. Georgiadis, R. E. Tarjan, R. F. Werneck, "Finding dominators in
    practice", JGAA 10(1), 2006).  ``parent``, ``stack``, ``at``, ``semi``, ``label``: scratch of the node count.
    The linked forest's ancestors use ``at`` once the search is over."""
    cdef int64_t cnt = 1, sp = 1, v, i, x, k, j, p, f1, f2, new
    cdef int64_t[::1] anc = at
    stack[0] = root
    at[0] = sptr[root]
    pre[root] = 0
    vertex[0] = root
    parent[0] = -1
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
    for k in range(cnt):
        semi[k] = k
        label[k] = k
        anc[k] = -1
        dom[k] = parent[k]
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
    return cnt


def stable_argsort(const int64_t[::1] keys, int64_t bound):
    """``np.argsort(keys, kind="stable")`` of integer keys in ``[0, bound)``: one counting sort when ``bound`` is
    at most ``max(65536, 2 * len(keys))``, else least-significant-digit passes (digits of 8 to 16 bits, about the
    length's bits): the permutation of ``graphkit.analysis.plan.arrays.stable_argsort`` (both are stable).
    O(len + bound), or O(passes * (len + 2 ** digit bits)).

    Raises
    ------
    ValueError
        If a key is outside ``[0, bound)``.
    """
    cdef int64_t n = keys.shape[0], i, k, d, shift = 0, bits = 8, mask
    cdef bint bad = False
    out_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_a
    with nogil:
        for i in range(n):
            if keys[i] < 0 or keys[i] >= bound:
                bad = True
                break
    if bad:
        raise ValueError("stable_argsort: a key is outside [0, bound)")
    if bound <= max(65536, 2 * n):  # one counting sort
        _counting(keys, out, np.zeros(bound + 1, dtype=np.int64), bound)
        return out_a
    while bits < 16 and (<int64_t> 1) << bits < n:
        bits += 1
    mask = ((<int64_t> 1) << bits) - 1
    tmp_a = np.empty(n, dtype=np.int64)
    count_a = np.empty(mask + 2, dtype=np.int64)
    cdef int64_t[::1] tmp = tmp_a, count = count_a, src_p, dst_p
    for i in range(n):
        tmp[i] = i
    src_p, dst_p = tmp, out
    while True:
        with nogil:
            for d in range(mask + 2):
                count[d] = 0
            for i in range(n):
                count[((keys[src_p[i]] >> shift) & mask) + 1] += 1
            for d in range(mask + 1):
                count[d + 1] += count[d]
            for i in range(n):
                k = (keys[src_p[i]] >> shift) & mask
                dst_p[count[k]] = src_p[i]
                count[k] += 1
        shift += bits
        src_p, dst_p = dst_p, src_p
        if shift >= 63 or bound <= (<int64_t> 1) << shift:
            break
    return np.asarray(src_p)


cdef void _counting(const int64_t[::1] keys, int64_t[::1] out, int64_t[::1] count, int64_t bound) noexcept nogil:
    cdef int64_t i, n = keys.shape[0], k
    for i in range(n):
        count[keys[i] + 1] += 1
    for i in range(bound):
        count[i + 1] += count[i]
    for i in range(n):
        k = keys[i]
        out[count[k]] = i
        count[k] += 1


def reach_arcs(const int64_t[::1] pair_ptr, const int32_t[::1] pair_target, const uint8_t[::1] runs_code,
               const uint8_t[:, ::1] has, const int64_t[::1] arc_ptr, const uint8_t[::1] arc_so,
               const int64_t[::1] srcs, int64_t[::1] pos, int64_t[::1] cpos):
    """``snapshot.reach_order`` (without its tree) and ``arrays._unfold`` in one pass over the snapshot's arrays:
    ``(order, code, garc, src, tgt)``, or None where ``reach_order`` gives up.

    A FIFO search from ``srcs`` (unique, in id order) over pairs (``pair_ptr``, ``pair_target``): a row is
    scanned in discovery order, its pairs by target index; a node runs the attacker's code when it is a source
    or entered through a ``runs_code`` pair (any pair of a scanned row), and its row then follows the pairs of
    variant 1 (``has[1]``, else ``has[0]``).  ``reach_order`` marks a level's targets at once, checked against
    the marks before the level: it gives up when a node not marked before the level is marked by a row at or
    after its own position; so does this pass (``cpos``: the position of the row that marked a node, -2 for a
    source).  Every reached row's pairs in its variant are then unfolded into arcs (``arc_ptr``; ``arc_so``:
    a ``source_only`` arc, kept only from a row running the attacker's code): ``garc`` the snapshot's arc,
    ``src``/``tgt`` local indexes (positions in ``order``).  ``pos`` and ``cpos`` (n,) int64 scratch preset to
    -1, handed back reset.  O(reached pairs + arcs).
    """
    cdef int64_t n = pos.shape[0], ns = srcs.shape[0], cnt = 0, head = 0, nm = 0, level_end, level_start = 0
    cdef int64_t u, pu, p, w, a, var, m = 0, i
    cdef bint failed = False
    order_a = np.empty(n, dtype=np.int64)
    marked_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] order = order_a, marked = marked_a
    with nogil:
        for i in range(ns):
            pos[srcs[i]] = cnt
            order[cnt] = srcs[i]
            cnt += 1
            cpos[srcs[i]] = -2
            marked[nm] = srcs[i]
            nm += 1
        level_end = cnt
        while head < cnt and not failed:
            if head == level_end:
                level_start, level_end = head, cnt
            u = order[head]
            pu = head
            head += 1
            for p in range(pair_ptr[u], pair_ptr[u + 1]):
                if runs_code[p]:
                    w = pair_target[p]
                    if cpos[w] == -1 or cpos[w] >= level_start:  # not marked before this level
                        if pos[w] >= 0 and pos[w] <= pu:  # its row was scanned: reach_order gives up
                            failed = True
                            break
                        if cpos[w] == -1:
                            cpos[w] = pu
                            marked[nm] = w
                            nm += 1
            if failed:
                break
            var = cpos[u] != -1
            for p in range(pair_ptr[u], pair_ptr[u + 1]):
                if has[var, p]:
                    w = pair_target[p]
                    if pos[w] < 0:
                        pos[w] = cnt
                        order[cnt] = w
                        cnt += 1
                    for a in range(arc_ptr[p], arc_ptr[p + 1]):
                        if var or not arc_so[a]:
                            m += 1
    if failed:
        _reset(pos, cpos, order, cnt, marked, nm)
        return None
    garc_a = np.empty(m, dtype=np.int64)
    src_a = np.empty(m, dtype=np.int64)
    tgt_a = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] garc = garc_a, src = src_a, tgt = tgt_a
    m = 0
    with nogil:
        for pu in range(cnt):
            u = order[pu]
            var = cpos[u] != -1
            for p in range(pair_ptr[u], pair_ptr[u + 1]):
                if has[var, p]:
                    w = pos[pair_target[p]]
                    for a in range(arc_ptr[p], arc_ptr[p + 1]):
                        if var or not arc_so[a]:
                            garc[m], src[m], tgt[m] = a, pu, w
                            m += 1
    code_a = np.unique(marked_a[:nm])
    _reset(pos, cpos, order, cnt, marked, nm)
    return order_a[:cnt], code_a, garc_a, src_a, tgt_a


cdef void _reset(int64_t[::1] pos, int64_t[::1] cpos, const int64_t[::1] order, int64_t cnt,
                 const int64_t[::1] marked, int64_t nm) noexcept nogil:
    cdef int64_t i
    for i in range(cnt):
        pos[order[i]] = -1
    for i in range(nm):
        cpos[marked[i]] = -1


def first_numbers(const int64_t[::1] keys, int64_t bound):
    """``(number, created)``: (len,) int64 the number of every key in order of first occurrence (0 for the first
    distinct key), and (d,) int64 the distinct keys in that order; keys in ``[0, bound)`` (a table of ``bound``
    entries).  What ``np.unique(keys, return_index=True, return_inverse=True)`` gives once renumbered by first
    index (``graphkit.analysis.plan.arrays._numbered``).  O(len + bound).

    Raises
    ------
    ValueError
        If a key is outside ``[0, bound)``.
    """
    cdef int64_t n = keys.shape[0], i, k, cnt = 0
    cdef bint bad = False
    table_a = np.full(bound, -1, dtype=np.int64)
    number_a = np.empty(n, dtype=np.int64)
    created_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] table = table_a, number = number_a, created = created_a
    with nogil:
        for i in range(n):
            k = keys[i]
            if k < 0 or k >= bound:
                bad = True
                break
            if table[k] < 0:
                table[k] = cnt
                created[cnt] = k
                cnt += 1
            number[i] = table[k]
    if bad:
        raise ValueError("first_numbers: a key is outside [0, bound)")
    return number_a, created_a[:cnt].copy()
