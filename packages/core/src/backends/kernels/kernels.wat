;; The two inner loops of BinaryIndex, with 128-bit SIMD. Source of kernels-wasm.ts:
;; `npm run build:kernels` assembles this file (wabt) and writes the bytes there.
(module
  (memory (export "memory") 1)

  ;; For each of n codes of `vectors` 16-byte blocks from `codes`: its Hamming distance to the
  ;; code at `query`, stored as u16 at `out`, and counted in the u32 histogram at `histogram`.
  (func (export "hamming")
    (param $codes i32) (param $n i32) (param $vectors i32) (param $query i32)
    (param $out i32) (param $histogram i32)
    (local $end i32) (local $v i32) (local $d i32) (local $h i32) (local $sum v128)
    (local $q0 v128) (local $q1 v128) (local $q2 v128)
    (local $a v128) (local $b v128) (local $c v128) (local $e v128) (local $end4 i32)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 1))))
    (if (i32.eqz (local.get $n)) (then (return)))
    (if (i32.eq (local.get $vectors) (i32.const 3))
      (then
        ;; 384 dimensions, the common case: the query in registers, byte counts summed before widening.
        (local.set $q0 (v128.load (local.get $query)))
        (local.set $q1 (v128.load offset=16 (local.get $query)))
        (local.set $q2 (v128.load offset=32 (local.get $query)))
        ;; Four codes at a time: their lane sums transposed into one vector [d0 d1 d2 d3].
        (local.set $end4 (i32.add (local.get $out) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 1))))
        (block $done4
          (loop $each4
            (br_if $done4 (i32.ge_u (local.get $out) (local.get $end4)))
            (local.set $a (i32x4.extadd_pairwise_i16x8_u
            (i16x8.extadd_pairwise_i8x16_u
              (i8x16.add
                (i8x16.add
                  (i8x16.popcnt (v128.xor (v128.load offset=0 (local.get $codes)) (local.get $q0)))
                  (i8x16.popcnt (v128.xor (v128.load offset=16 (local.get $codes)) (local.get $q1))))
                (i8x16.popcnt (v128.xor (v128.load offset=32 (local.get $codes)) (local.get $q2)))))))
            (local.set $b (i32x4.extadd_pairwise_i16x8_u
            (i16x8.extadd_pairwise_i8x16_u
              (i8x16.add
                (i8x16.add
                  (i8x16.popcnt (v128.xor (v128.load offset=48 (local.get $codes)) (local.get $q0)))
                  (i8x16.popcnt (v128.xor (v128.load offset=64 (local.get $codes)) (local.get $q1))))
                (i8x16.popcnt (v128.xor (v128.load offset=80 (local.get $codes)) (local.get $q2)))))))
            (local.set $c (i32x4.extadd_pairwise_i16x8_u
            (i16x8.extadd_pairwise_i8x16_u
              (i8x16.add
                (i8x16.add
                  (i8x16.popcnt (v128.xor (v128.load offset=96 (local.get $codes)) (local.get $q0)))
                  (i8x16.popcnt (v128.xor (v128.load offset=112 (local.get $codes)) (local.get $q1))))
                (i8x16.popcnt (v128.xor (v128.load offset=128 (local.get $codes)) (local.get $q2)))))))
            (local.set $e (i32x4.extadd_pairwise_i16x8_u
            (i16x8.extadd_pairwise_i8x16_u
              (i8x16.add
                (i8x16.add
                  (i8x16.popcnt (v128.xor (v128.load offset=144 (local.get $codes)) (local.get $q0)))
                  (i8x16.popcnt (v128.xor (v128.load offset=160 (local.get $codes)) (local.get $q1))))
                (i8x16.popcnt (v128.xor (v128.load offset=176 (local.get $codes)) (local.get $q2)))))))
            (local.set $a
              (i32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a) (local.get $b))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a) (local.get $b))))
            (local.set $c
              (i32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $c) (local.get $e))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $c) (local.get $e))))
            (local.set $sum
              (i32x4.add
                (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $a) (local.get $c))
                (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a) (local.get $c))))
            (i64.store (local.get $out)
              (i64x2.extract_lane 0 (i16x8.narrow_i32x4_u (local.get $sum) (local.get $sum))))
        (local.set $h (i32.add (local.get $histogram) (i32.shl (i32x4.extract_lane 0 (local.get $sum)) (i32.const 2))))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
        (local.set $h (i32.add (local.get $histogram) (i32.shl (i32x4.extract_lane 1 (local.get $sum)) (i32.const 2))))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
        (local.set $h (i32.add (local.get $histogram) (i32.shl (i32x4.extract_lane 2 (local.get $sum)) (i32.const 2))))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
        (local.set $h (i32.add (local.get $histogram) (i32.shl (i32x4.extract_lane 3 (local.get $sum)) (i32.const 2))))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
            (local.set $codes (i32.add (local.get $codes) (i32.const 192)))
            (local.set $out (i32.add (local.get $out) (i32.const 8)))
            (br $each4)))
        (if (i32.ge_u (local.get $out) (local.get $end)) (then (return)))
        (loop $each3
          (local.set $sum
            (i32x4.extadd_pairwise_i16x8_u
              (i16x8.extadd_pairwise_i8x16_u
                (i8x16.add
                  (i8x16.add
                    (i8x16.popcnt (v128.xor (v128.load (local.get $codes)) (local.get $q0)))
                    (i8x16.popcnt (v128.xor (v128.load offset=16 (local.get $codes)) (local.get $q1))))
                  (i8x16.popcnt (v128.xor (v128.load offset=32 (local.get $codes)) (local.get $q2)))))))
          (local.set $d
            (i32.add
              (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
              (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum)))))
          (i32.store16 (local.get $out) (local.get $d))
          (local.set $h (i32.add (local.get $histogram) (i32.shl (local.get $d) (i32.const 2))))
          (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
          (local.set $codes (i32.add (local.get $codes) (i32.const 48)))
          (local.set $out (i32.add (local.get $out) (i32.const 2)))
          (br_if $each3 (i32.lt_u (local.get $out) (local.get $end))))
        (return)))
    (loop $each
      ;; Byte counts widened to 16 bits per block: no lane overflows below 4,096 blocks.
      (local.set $sum (v128.const i32x4 0 0 0 0))
      (local.set $v (i32.const 0))
      (loop $block
        (local.set $sum
          (i16x8.add (local.get $sum)
            (i16x8.extadd_pairwise_i8x16_u
              (i8x16.popcnt
                (v128.xor
                  (v128.load (i32.add (local.get $codes) (i32.shl (local.get $v) (i32.const 4))))
                  (v128.load (i32.add (local.get $query) (i32.shl (local.get $v) (i32.const 4)))))))))
        (local.set $v (i32.add (local.get $v) (i32.const 1)))
        (br_if $block (i32.lt_u (local.get $v) (local.get $vectors))))
      (local.set $sum (i32x4.extadd_pairwise_i16x8_u (local.get $sum)))
      (local.set $d
        (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
          (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum)))))
      (i32.store16 (local.get $out) (local.get $d))
      (local.set $h (i32.add (local.get $histogram) (i32.shl (local.get $d) (i32.const 2))))
      (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
      (local.set $codes (i32.add (local.get $codes) (i32.shl (local.get $vectors) (i32.const 4))))
      (local.set $out (i32.add (local.get $out) (i32.const 2)))
      (br_if $each (i32.lt_u (local.get $out) (local.get $end)))))

  ;; `hamming` for codes of three 16-byte blocks (257-384 dimensions) by scalar i64.popcnt, six words a
  ;; code: the same distances and histogram. Where popcnt is one instruction (x86-64) it scans ~30%
  ;; faster than the SIMD byte counts, which x86 builds of several shuffles; elsewhere (ARM, whose
  ;; byte count is one instruction) the caller keeps `hamming`.
  (func (export "hamming3")
    (param $codes i32) (param $n i32) (param $query i32) (param $out i32) (param $histogram i32)
    (local $end i32) (local $d i32) (local $h i32)
    (local $q0 i64) (local $q1 i64) (local $q2 i64) (local $q3 i64) (local $q4 i64) (local $q5 i64)
    (local.set $q0 (i64.load offset=0 (local.get $query)))
    (local.set $q1 (i64.load offset=8 (local.get $query)))
    (local.set $q2 (i64.load offset=16 (local.get $query)))
    (local.set $q3 (i64.load offset=24 (local.get $query)))
    (local.set $q4 (i64.load offset=32 (local.get $query)))
    (local.set $q5 (i64.load offset=40 (local.get $query)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 1))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $d
          (i32.wrap_i64
            (i64.add
              (i64.add
                (i64.add
                  (i64.popcnt (i64.xor (i64.load offset=0 (local.get $codes)) (local.get $q0)))
                  (i64.popcnt (i64.xor (i64.load offset=8 (local.get $codes)) (local.get $q1))))
                (i64.add
                  (i64.popcnt (i64.xor (i64.load offset=16 (local.get $codes)) (local.get $q2)))
                  (i64.popcnt (i64.xor (i64.load offset=24 (local.get $codes)) (local.get $q3)))))
              (i64.add
                (i64.popcnt (i64.xor (i64.load offset=32 (local.get $codes)) (local.get $q4)))
                (i64.popcnt (i64.xor (i64.load offset=40 (local.get $codes)) (local.get $q5)))))))
        (i32.store16 (local.get $out) (local.get $d))
        (local.set $h (i32.add (local.get $histogram) (i32.shl (local.get $d) (i32.const 2))))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
        (local.set $codes (i32.add (local.get $codes) (i32.const 48)))
        (local.set $out (i32.add (local.get $out) (i32.const 2)))
        (br $each))))

  ;; The dot product of `blocks` x 16 int8 components at `code` with as many int16 at `query`.
  ;; The caller scales the query so that no 32-bit sum can overflow.
  (func (export "dot8")
    (param $code i32) (param $query i32) (param $blocks i32) (result i32)
    (local $acc v128) (local $c v128) (local $end i32)
    (local.set $end (i32.add (local.get $code) (i32.shl (local.get $blocks) (i32.const 4))))
    (loop $block
      (local.set $c (v128.load (local.get $code)))
      (local.set $acc
        (i32x4.add (local.get $acc)
          (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $c)) (v128.load (local.get $query)))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $c)) (v128.load offset=16 (local.get $query))))))
      (local.set $code (i32.add (local.get $code) (i32.const 16)))
      (local.set $query (i32.add (local.get $query) (i32.const 32)))
      (br_if $block (i32.lt_u (local.get $code) (local.get $end))))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
      (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
  ;; For each of n candidates, dot8's product of its int8 copy (byte offset: u32 at `codes`) with the
  ;; int16 query, over `scale`, times its factor (f32 index: u32 at `factors`), over `length`: f64 at
  ;; `out`, the numbers BinaryIndex's JS loop computed with one dot8 call a candidate, in its order of
  ;; float64 operations (the integer sums are exact). Four candidates side by side: their copies lie
  ;; apart in memory, and four loads in flight wait for memory together instead of one after another.
  (func $score (param $acc v128) (param $factor i32) (param $scale f64) (param $length f64) (result f64)
    (f64.div
      (f64.mul
        (f64.div
          (f64.convert_i32_s
            (i32.add
              (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
              (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
          (local.get $scale))
        (f64.promote_f32 (f32.load (i32.shl (local.get $factor) (i32.const 2)))))
      (local.get $length)))
  (func $dot16 (param $c v128) (param $q i32) (result v128)
    (i32x4.add
      (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $c)) (v128.load (local.get $q)))
      (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $c)) (v128.load offset=16 (local.get $q)))))
  (func (export "rank8")
    (param $codes i32) (param $factors i32) (param $n i32) (param $query i32) (param $blocks i32)
    (param $scale f64) (param $length f64) (param $out i32)
    (local $i i32) (local $b i32) (local $q i32) (local $end4 i32) (local $bytes i32) (local $sink i32)
    (local $c0 i32) (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    ;; First a load from every 64-byte line of each copy and factor, none waiting for another: the
    ;; pool's ~3,600 lines come into the cache in parallel, not one candidate's lines at a time.
    (local.set $bytes (i32.shl (local.get $blocks) (i32.const 4)))
    (block $touched
      (loop $touch
        (br_if $touched (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c0 (i32.load (i32.add (local.get $codes) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $sink
          (i32.xor (local.get $sink)
            (i32.xor
              (i32.load8_u (i32.sub (i32.add (local.get $c0) (local.get $bytes)) (i32.const 1)))
              (i32.load (i32.shl (i32.load (i32.add (local.get $factors) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 2))))))
        (local.set $b (i32.const 0))
        (loop $line
          (local.set $sink (i32.xor (local.get $sink) (i32.load8_u (i32.add (local.get $c0) (local.get $b)))))
          (local.set $b (i32.add (local.get $b) (i32.const 64)))
          (br_if $line (i32.lt_u (local.get $b) (local.get $bytes))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $touch)))
    ;; Kept (stored where the first score goes next), so that no compiler drops the loads.
    (i32.store (local.get $out) (local.get $sink))
    (local.set $i (i32.const 0))
    (local.set $end4 (i32.and (local.get $n) (i32.const -4)))
    (block $done4
      (loop $each4
        (br_if $done4 (i32.ge_u (local.get $i) (local.get $end4)))
        (local.set $c0 (i32.load offset=0 (i32.add (local.get $codes) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $c1 (i32.load offset=4 (i32.add (local.get $codes) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $c2 (i32.load offset=8 (i32.add (local.get $codes) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $c3 (i32.load offset=12 (i32.add (local.get $codes) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $q (local.get $query))
        (local.set $b (i32.const 0))
        (loop $block
          (local.set $a0 (i32x4.add (local.get $a0) (call $dot16 (v128.load (i32.add (local.get $c0) (local.get $b))) (local.get $q))))
          (local.set $a1 (i32x4.add (local.get $a1) (call $dot16 (v128.load (i32.add (local.get $c1) (local.get $b))) (local.get $q))))
          (local.set $a2 (i32x4.add (local.get $a2) (call $dot16 (v128.load (i32.add (local.get $c2) (local.get $b))) (local.get $q))))
          (local.set $a3 (i32x4.add (local.get $a3) (call $dot16 (v128.load (i32.add (local.get $c3) (local.get $b))) (local.get $q))))
          (local.set $b (i32.add (local.get $b) (i32.const 16)))
          (local.set $q (i32.add (local.get $q) (i32.const 32)))
          (br_if $block (i32.lt_u (local.get $b) (i32.shl (local.get $blocks) (i32.const 4)))))
        (f64.store offset=0 (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (call $score (local.get $a0) (i32.load offset=0 (i32.add (local.get $factors) (i32.shl (local.get $i) (i32.const 2)))) (local.get $scale) (local.get $length)))
        (f64.store offset=8 (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (call $score (local.get $a1) (i32.load offset=4 (i32.add (local.get $factors) (i32.shl (local.get $i) (i32.const 2)))) (local.get $scale) (local.get $length)))
        (f64.store offset=16 (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (call $score (local.get $a2) (i32.load offset=8 (i32.add (local.get $factors) (i32.shl (local.get $i) (i32.const 2)))) (local.get $scale) (local.get $length)))
        (f64.store offset=24 (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (call $score (local.get $a3) (i32.load offset=12 (i32.add (local.get $factors) (i32.shl (local.get $i) (i32.const 2)))) (local.get $scale) (local.get $length)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $each4)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c0 (i32.load (i32.add (local.get $codes) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $q (local.get $query))
        (local.set $b (i32.const 0))
        (loop $block1
          (local.set $a0 (i32x4.add (local.get $a0) (call $dot16 (v128.load (i32.add (local.get $c0) (local.get $b))) (local.get $q))))
          (local.set $b (i32.add (local.get $b) (i32.const 16)))
          (local.set $q (i32.add (local.get $q) (i32.const 32)))
          (br_if $block1 (i32.lt_u (local.get $b) (i32.shl (local.get $blocks) (i32.const 4)))))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (call $score (local.get $a0) (i32.load (i32.add (local.get $factors) (i32.shl (local.get $i) (i32.const 2)))) (local.get $scale) (local.get $length)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each))))
  ;; The int8 copy (at `out`) and factor (f32 at `factor`) of the d float32 components at `vector`, as
  ;; BinaryIndex's JS `quantize` computes them, in float64: the same bytes. It runs where the JS loop
  ;; would still be cold (a restored index's first search quantizes its pool), so in V8's baseline
  ;; compiler: 16 components a step where the order does not matter (the largest magnitude, the
  ;; rounding), one at a time only for the norm, whose float64 sum must keep the JS order.
  (func $quantize (export "quantize")
    (param $vector i32) (param $d i32) (param $out i32) (param $factor i32)
    (local $i i32) (local $end i32) (local $x f64) (local $m f64) (local $max f64) (local $norm f64)
    (local $scale f64) (local $y f64) (local $r f64)
    (local $p i32) (local $vmax v128) (local $vscale v128)
    (local $v v128) (local $yv v128) (local $rv v128) (local $lo v128)
    (local $a v128) (local $b v128) (local $c v128) (local $e v128)
    ;; The norm, in order: four components a step, added one by one.
    (local.set $end (i32.and (local.get $d) (i32.const -4)))
    (block $done_norm4
      (loop $each_norm4
        (br_if $done_norm4 (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $p (i32.add (local.get $vector) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $x (f64.promote_f32 (f32.load (local.get $p))))
        (local.set $norm (f64.add (local.get $norm) (f64.mul (local.get $x) (local.get $x))))
        (local.set $x (f64.promote_f32 (f32.load offset=4 (local.get $p))))
        (local.set $norm (f64.add (local.get $norm) (f64.mul (local.get $x) (local.get $x))))
        (local.set $x (f64.promote_f32 (f32.load offset=8 (local.get $p))))
        (local.set $norm (f64.add (local.get $norm) (f64.mul (local.get $x) (local.get $x))))
        (local.set $x (f64.promote_f32 (f32.load offset=12 (local.get $p))))
        (local.set $norm (f64.add (local.get $norm) (f64.mul (local.get $x) (local.get $x))))
        ;; the largest magnitude, four lanes: pmax keeps the lane when |x| is NaN, as the JS comparison does
        (local.set $vmax (f32x4.pmax (local.get $vmax) (f32x4.abs (v128.load (local.get $p)))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $each_norm4)))
    (local.set $max (f64.promote_f32 (f32x4.extract_lane 0 (local.get $vmax))))
    (local.set $m (f64.promote_f32 (f32x4.extract_lane 1 (local.get $vmax))))
    (local.set $max (select (local.get $m) (local.get $max) (f64.gt (local.get $m) (local.get $max))))
    (local.set $m (f64.promote_f32 (f32x4.extract_lane 2 (local.get $vmax))))
    (local.set $max (select (local.get $m) (local.get $max) (f64.gt (local.get $m) (local.get $max))))
    (local.set $m (f64.promote_f32 (f32x4.extract_lane 3 (local.get $vmax))))
    (local.set $max (select (local.get $m) (local.get $max) (f64.gt (local.get $m) (local.get $max))))
    (block $done1
      (loop $each1
        (br_if $done1 (i32.ge_u (local.get $i) (local.get $d)))
        (local.set $x (f64.promote_f32 (f32.load (i32.add (local.get $vector) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $norm (f64.add (local.get $norm) (f64.mul (local.get $x) (local.get $x))))
        ;; x < 0 ? -x : x, then magnitude > max ? magnitude : max (a NaN is skipped, as in JS)
        (local.set $m (select (f64.neg (local.get $x)) (local.get $x) (f64.lt (local.get $x) (f64.const 0))))
        (local.set $max (select (local.get $m) (local.get $max) (f64.gt (local.get $m) (local.get $max))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each1)))
    (local.set $scale
      (select (f64.div (f64.const 127) (local.get $max)) (f64.const 0) (f64.gt (local.get $max) (f64.const 0))))
    (local.set $vscale (f64x2.splat (local.get $scale)))
    ;; 16 components a step, as the scalar loop below rounds them (floor(y + 0.5), less one where
    ;; that overshot y by more than a half), a pair of float64 lanes at a time: four groups of four,
    ;; each into int32 lanes, then narrowed to int8 (|y| <= 127: nothing saturates). Written out, not
    ;; called: a call a group cost ~20% more in the baseline compiler.
    (local.set $i (i32.const 0))
    (local.set $end (i32.and (local.get $d) (i32.const -16)))
    (block $done16
      (loop $each16
        (br_if $done16 (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $p (i32.add (local.get $vector) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $v (v128.load offset=0 (local.get $p)))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $lo (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1)))))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v))) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $a (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1))))))
        (local.set $v (v128.load offset=16 (local.get $p)))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $lo (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1)))))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v))) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $b (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1))))))
        (local.set $v (v128.load offset=32 (local.get $p)))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $lo (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1)))))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v))) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $c (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1))))))
        (local.set $v (v128.load offset=48 (local.get $p)))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $lo (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1)))))
        (local.set $yv (f64x2.mul (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v))) (local.get $vscale)))
        (local.set $rv (f64x2.floor (f64x2.add (local.get $yv) (v128.const f64x2 0.5 0.5))))
        (local.set $e (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $lo) (i32x4.trunc_sat_f64x2_s_zero
            (f64x2.sub (local.get $rv)
              (v128.and (f64x2.gt (f64x2.sub (local.get $rv) (v128.const f64x2 0.5 0.5)) (local.get $yv)) (v128.const f64x2 1 1))))))
        (v128.store (i32.add (local.get $out) (local.get $i))
          (i8x16.narrow_i16x8_s
            (i16x8.narrow_i32x4_s (local.get $a) (local.get $b))
            (i16x8.narrow_i32x4_s (local.get $c) (local.get $e))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $each16)))
    (block $done2
      (loop $each2
        (br_if $done2 (i32.ge_u (local.get $i) (local.get $d)))
        (local.set $y
          (f64.mul
            (f64.promote_f32 (f32.load (i32.add (local.get $vector) (i32.shl (local.get $i) (i32.const 2)))))
            (local.get $scale)))
        (local.set $r (f64.floor (f64.add (local.get $y) (f64.const 0.5))))
        ;; rounded - (rounded - 0.5 > y); a NaN stores 0, as an Int8Array does
        (i32.store8 (i32.add (local.get $out) (local.get $i))
          (i32.sub
            (i32.trunc_sat_f64_s (local.get $r))
            (f64.gt (f64.sub (local.get $r) (f64.const 0.5)) (local.get $y))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each2)))
    (f32.store (local.get $factor)
      (select
        (f32.demote_f64 (f64.div (f64.const 1) (f64.mul (local.get $scale) (f64.sqrt (local.get $norm)))))
        (f32.const 0)
        (i32.and (f64.gt (local.get $max) (f64.const 0)) (f64.gt (local.get $norm) (f64.const 0))))))
;; `quantize` of n vectors side by side at `vector` (d float32 each): int8 copies every `stride` bytes
;; from `out`, factors every 4 bytes from `factor`. One call for a restored index's staged pool (~600
;; on a cold first search), which paid V8's generic JS-to-WebAssembly wrapper once a vector.
  (func (export "quantizeMany")
    (param $vector i32) (param $d i32) (param $out i32) (param $factor i32) (param $n i32) (param $stride i32)
    (block $done
      (loop $each
        (br_if $done (i32.eqz (local.get $n)))
        (call $quantize (local.get $vector) (local.get $d) (local.get $out) (local.get $factor))
        (local.set $vector (i32.add (local.get $vector) (i32.shl (local.get $d) (i32.const 2))))
        (local.set $out (i32.add (local.get $out) (local.get $stride)))
        (local.set $factor (i32.add (local.get $factor) (i32.const 4)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $each))))
;; The cosine of the d float32 at `a` and at `b`, as core's JS `cosineSimilarity` computes it, step
;; for step in float64 (the same number): the exact scores of a search's head, which a cold process
;; ran in the interpreter and then had TurboFan compile mid-search.
  (func (export "cosine")
    (param $a i32) (param $b i32) (param $d i32) (result f64)
    (local $i i32) (local $x f64) (local $y f64) (local $dot f64) (local $na f64) (local $nb f64)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $d)))
        (local.set $x (f64.promote_f32 (f32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $y (f64.promote_f32 (f32.load (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $dot (f64.add (local.get $dot) (f64.mul (local.get $x) (local.get $y))))
        (local.set $na (f64.add (local.get $na) (f64.mul (local.get $x) (local.get $x))))
        (local.set $nb (f64.add (local.get $nb) (f64.mul (local.get $y) (local.get $y))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (if (result f64) (i32.or (f64.eq (local.get $na) (f64.const 0)) (f64.eq (local.get $nb) (f64.const 0)))
      (then (f64.const 0))
      (else (f64.div (local.get $dot) (f64.sqrt (f64.mul (local.get $na) (local.get $nb)))))))
;; The indexes i < n (ascending) whose u16 at `distances` is at most `threshold`, as u32 at `out`; returns how many.
  (func (export "within")
    (param $distances i32) (param $n i32) (param $threshold i32) (param $out i32) (result i32)
    (local $i i32) (local $end i32) (local $mask i32) (local $limit v128) (local $count i32)
    (local.set $limit (i16x8.splat (local.get $threshold)))
    (local.set $end (i32.and (local.get $n) (i32.const -8)))
    (block $done8
      (loop $each8
        (br_if $done8 (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $mask
          (i16x8.bitmask
            (i16x8.le_u
              (v128.load (i32.add (local.get $distances) (i32.shl (local.get $i) (i32.const 1))))
              (local.get $limit))))
        (block $bits
          (loop $each_bit
            (br_if $bits (i32.eqz (local.get $mask)))
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2)))
              (i32.add (local.get $i) (i32.ctz (local.get $mask))))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
            (br $each_bit)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $each8)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.le_u
              (i32.load16_u (i32.add (local.get $distances) (i32.shl (local.get $i) (i32.const 1))))
              (local.get $threshold))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $i))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $count))
)
