;; The loops of a term-at-a-time keyword search after its scoring (KeywordIndex.termAtATime): the k-th
;; best score of the matched slots and the slots at or above it. In JS a cold process ran them in V8's
;; interpreter, where each float64 read of a score is a new heap number (~0.3 MB and ~2.5 ms of a 100k
;; store's first search for ~4,700 matches). Source of keyword-kernels-wasm.ts (`npm run build:kernels`).
(module
  (import "keyword" "memory" (memory 1))

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
