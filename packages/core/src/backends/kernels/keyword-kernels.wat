;; The loops of a term-at-a-time keyword search (KeywordIndex.termAtATime, score-block.ts): a term's
;; BM25F parts added into the scores by slot, the k-th best score of the matched slots and the slots at
;; or above it. In JS a cold process ran them in V8's interpreter, where each float64 a step makes or
;; reads is a new heap number (~1.2 MB and several ms of a 100k store's first search for ~4,700
;; entries). Source of keyword-kernels-wasm.ts (`npm run build:kernels`).
(module
  (import "keyword" "memory" (memory 1))

  ;; One term's n entries: slot (i32, -1 when not admitted), packed frequencies (u32: text in the low
  ;; 16 bits, context in the high 16), the slot's text and context lengths (u32). Each admitted entry's
  ;; part, as ranking.ts's scoreTermAtATime computes it (the same float64 steps, in the same order), is
  ;; added to the f64 at scores[slot] when seen[slot] (u8) is `generation`, else stored there, the slot
  ;; marked and appended to the i32 at `matched` after the m there; returns the new m.
  (func (export "score")
    (param $slots i32) (param $tfs i32) (param $texts i32) (param $contexts i32) (param $n i32)
    (param $idf f64) (param $avgText f64) (param $avgContext f64)
    (param $k1 f64) (param $b f64) (param $bc f64) (param $w f64)
    (param $scores i32) (param $seen i32) (param $generation i32) (param $matched i32) (param $m i32)
    (result i32)
    (local $i i32) (local $s i32) (local $packed i32) (local $fc i32) (local $o i32) (local $at i32)
    (local $f f64) (local $x f64)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $o (i32.shl (local.get $i) (i32.const 2)))
        (local.set $s (i32.load (i32.add (local.get $slots) (local.get $o))))
        (if (i32.ge_s (local.get $s) (i32.const 0))
          (then
            (local.set $packed (i32.load (i32.add (local.get $tfs) (local.get $o))))
            (local.set $fc (i32.shr_u (local.get $packed) (i32.const 16)))
            ;; f = (packed & 0xffff) / (1 - b + (b * text) / avgText)
            (local.set $f
              (f64.div
                (f64.convert_i32_u (i32.and (local.get $packed) (i32.const 0xffff)))
                (f64.add
                  (f64.sub (f64.const 1) (local.get $b))
                  (f64.div
                    (f64.mul (local.get $b) (f64.convert_i32_u (i32.load (i32.add (local.get $texts) (local.get $o)))))
                    (local.get $avgText)))))
            ;; f += (w * fc) / (1 - bc + (bc * context) / avgContext)
            (if (local.get $fc)
              (then
                (local.set $f
                  (f64.add (local.get $f)
                    (f64.div
                      (f64.mul (local.get $w) (f64.convert_i32_u (local.get $fc)))
                      (f64.add
                        (f64.sub (f64.const 1) (local.get $bc))
                        (f64.div
                          (f64.mul (local.get $bc)
                            (f64.convert_i32_u (i32.load (i32.add (local.get $contexts) (local.get $o)))))
                          (local.get $avgContext))))))))
            ;; x = (idf * f * (k1 + 1)) / (f + k1)
            (local.set $x
              (f64.div
                (f64.mul (f64.mul (local.get $idf) (local.get $f)) (f64.add (local.get $k1) (f64.const 1)))
                (f64.add (local.get $f) (local.get $k1))))
            (local.set $at (i32.add (local.get $scores) (i32.shl (local.get $s) (i32.const 3))))
            (if (i32.eq (i32.load8_u (i32.add (local.get $seen) (local.get $s))) (local.get $generation))
              (then (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (local.get $x))))
              (else
                ;; The first term's part alone: what 0 + part gives (parts are positive).
                (i32.store8 (i32.add (local.get $seen) (local.get $s)) (local.get $generation))
                (f64.store (local.get $at) (local.get $x))
                (i32.store (i32.add (local.get $matched) (i32.shl (local.get $m) (i32.const 2))) (local.get $s))
                (local.set $m (i32.add (local.get $m) (i32.const 1)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $m))

  ;; The f64 at `index` of scores[matched[i]] (i < m) sorted ascending, found by quickselect in a copy
  ;; at `values` (the same steps as ranking.ts's selectAscending; finite values).
  (func (export "kth")
    (param $scores i32) (param $matched i32) (param $m i32) (param $index i32) (param $values i32) (result f64)
    (local $i i32) (local $j i32) (local $lo i32) (local $hi i32) (local $mid i32)
    (local $a f64) (local $c f64) (local $pivot f64) (local $v f64)
    (block $copied
      (loop $copy
        (br_if $copied (i32.ge_u (local.get $i) (local.get $m)))
        (f64.store
          (i32.add (local.get $values) (i32.shl (local.get $i) (i32.const 3)))
          (f64.load
            (i32.add (local.get $scores)
              (i32.shl (i32.load (i32.add (local.get $matched) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 3)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (local.set $hi (i32.sub (local.get $m) (i32.const 1)))
    (block $narrowed
      (loop $narrow
        (br_if $narrowed (i32.le_s (local.get $hi) (local.get $lo)))
        ;; Median of three as the pivot.
        (local.set $mid (i32.shr_u (i32.add (local.get $lo) (local.get $hi)) (i32.const 1)))
        (local.set $a (f64.load (i32.add (local.get $values) (i32.shl (local.get $lo) (i32.const 3)))))
        (local.set $c (f64.load (i32.add (local.get $values) (i32.shl (local.get $mid) (i32.const 3)))))
        (local.set $pivot
          (f64.max
            (f64.min (local.get $a) (local.get $c))
            (f64.min (f64.max (local.get $a) (local.get $c))
              (f64.load (i32.add (local.get $values) (i32.shl (local.get $hi) (i32.const 3)))))))
        (local.set $i (local.get $lo))
        (local.set $j (local.get $hi))
        (block $parted
          (loop $part
            (br_if $parted (i32.gt_s (local.get $i) (local.get $j)))
            (block $up
              (loop $step_up
                (br_if $up (i32.eqz (f64.lt
                  (f64.load (i32.add (local.get $values) (i32.shl (local.get $i) (i32.const 3))))
                  (local.get $pivot))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $step_up)))
            (block $down
              (loop $step_down
                (br_if $down (i32.eqz (f64.gt
                  (f64.load (i32.add (local.get $values) (i32.shl (local.get $j) (i32.const 3))))
                  (local.get $pivot))))
                (local.set $j (i32.sub (local.get $j) (i32.const 1)))
                (br $step_down)))
            (if (i32.le_s (local.get $i) (local.get $j))
              (then
                (local.set $v (f64.load (i32.add (local.get $values) (i32.shl (local.get $i) (i32.const 3)))))
                (f64.store (i32.add (local.get $values) (i32.shl (local.get $i) (i32.const 3)))
                  (f64.load (i32.add (local.get $values) (i32.shl (local.get $j) (i32.const 3)))))
                (f64.store (i32.add (local.get $values) (i32.shl (local.get $j) (i32.const 3))) (local.get $v))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (local.set $j (i32.sub (local.get $j) (i32.const 1)))))
            (br $part)))
        ;; [lo, j] <= pivot, [i, hi] >= pivot, and (j, i) all equal the pivot.
        (if (i32.le_s (local.get $index) (local.get $j))
          (then (local.set $hi (local.get $j)))
          (else
            (if (i32.ge_s (local.get $index) (local.get $i))
              (then (local.set $lo (local.get $i)))
              (else (br $narrowed)))))
        (br $narrow)))
    (f64.load (i32.add (local.get $values) (i32.shl (local.get $index) (i32.const 3)))))

  ;; The slots matched[i] (i < m, in that order) whose f64 at scores[slot] is at least `least`, as i32
  ;; at `out`; returns how many.
  (func (export "atLeast")
    (param $scores i32) (param $matched i32) (param $m i32) (param $least f64) (param $out i32) (result i32)
    (local $i i32) (local $s i32) (local $count i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $s (i32.load (i32.add (local.get $matched) (i32.shl (local.get $i) (i32.const 2)))))
        (if (f64.ge (f64.load (i32.add (local.get $scores) (i32.shl (local.get $s) (i32.const 3)))) (local.get $least))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $s))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $count))
)
