;; The SIMD scan behind matcher.ts' runLineStarts (see run-scan.ts): findRun(start, end, len)
;; answers where the first run of `len` or more class bytes in memory [start, end) begins (a run
;; counts only bytes from `start` on), or -1. The class is two 16-byte tables at 0 and 16, indexed
;; by a byte's low nibble, whose bits say which high nibbles are in it (bytes below 0x80, then
;; from 0x80), and 1 << i at 32 + i. 64 bytes a step: a class mask by two swizzles per 16, then the
;; runs from the mask's bits, carried across steps. It reads up to 63 bytes past `end`: the memory
;; there must exist (not be in the class: those bits are cleared).
;; Also plainScan (the lines holding a literal, by two of its bytes 32 places a step, written
;; straight into a batch of lines), literalLines (the lines holding one of a few literals, as a
;; regex's line filter), postingList and postingWithin (a posting list decoded, or merged with
;; the candidates found so far as it is decoded) and countNewlines (16 bytes a step), below.
;; Rebuild run-scan-module.ts with scripts/build-run-scan.sh (wat2wasm, Debian's wabt).
(module
  (memory (export "memory") 1)
  (func $findRun (export "findRun") (param $start i32) (param $end i32) (param $len i32) (result i32)
    (local $p i32) (local $carry i32) (local $t i32) (local $cover i32) (local $step i32)
    (local $m i64) (local $x i64)
    (local $v v128) (local $tlo v128) (local $thi v128) (local $bits v128)
    (local $nibble v128) (local $seven v128) (local $zero v128)
    (local.set $tlo (v128.load (i32.const 0)))
    (local.set $thi (v128.load (i32.const 16)))
    (local.set $bits (v128.load (i32.const 32)))
    (local.set $nibble (i8x16.splat (i32.const 15)))
    (local.set $seven (i8x16.splat (i32.const 7)))
    (local.set $zero (v128.const i32x4 0 0 0 0))
    (local.set $p (local.get $start))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        ;; bit i: byte p + i is in the class (64 bytes: four 16-byte masks)
        (local.set $m (i64.or
          (i64.or
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=0 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
            (i64.shl
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=16 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
              (i64.const 16)))
          (i64.or
            (i64.shl
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=32 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
              (i64.const 32))
            (i64.shl
          (i64.extend_i32_u (i8x16.bitmask (i8x16.ne (v128.and
            (v128.bitselect
              (i8x16.swizzle (local.get $thi) (v128.and (local.tee $v (v128.load offset=48 (local.get $p))) (local.get $nibble)))
              (i8x16.swizzle (local.get $tlo) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.lt_s (local.get $v) (local.get $zero)))
            (i8x16.swizzle (local.get $bits) (v128.and (i8x16.shr_u (local.get $v) (i32.const 4)) (local.get $seven))))
            (local.get $zero))))
              (i64.const 48)))))
        ;; bytes past the end are not
        (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 64))
          (then (local.set $m (i64.and (local.get $m)
            (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.sub (local.get $end) (local.get $p)))) (i64.const 1))))))
        (if (i64.eqz (local.get $m))
          (then (local.set $carry (i32.const 0)))
          (else
            (if (i64.eq (local.get $m) (i64.const -1))
              (then
                (local.set $carry (i32.add (local.get $carry) (i32.const 64)))
                (if (i32.ge_u (local.get $carry) (local.get $len))
                  (then (return (i32.sub (i32.add (local.get $p) (i32.const 64)) (local.get $carry))))))
              (else
                ;; the run from the block's first byte, joined to the one before it
                (local.set $t (i32.wrap_i64 (i64.ctz (i64.xor (local.get $m) (i64.const -1)))))
                (if (i32.ge_u (i32.add (local.get $carry) (local.get $t)) (local.get $len))
                  (then (return (i32.sub (local.get $p) (local.get $carry)))))
                ;; runs inside the block: bit i of x when bytes i .. i+len-1 all are (shifts that double the cover)
                (if (i32.le_u (local.get $len) (i32.const 64))
                  (then
                    (local.set $x (local.get $m))
                    (local.set $cover (i32.const 1))
                    (block $covered
                      (loop $widen
                        (br_if $covered (i32.ge_u (local.get $cover) (local.get $len)))
                        (br_if $covered (i64.eqz (local.get $x)))
                        (local.set $step (select (local.get $cover) (i32.sub (local.get $len) (local.get $cover))
                          (i32.le_u (local.get $cover) (i32.sub (local.get $len) (local.get $cover)))))
                        (local.set $x (i64.and (local.get $x) (i64.shr_u (local.get $x) (i64.extend_i32_u (local.get $step)))))
                        (local.set $cover (i32.add (local.get $cover) (local.get $step)))
                        (br $widen)))
                    (if (i64.ne (local.get $x) (i64.const 0))
                      (then (return (i32.add (local.get $p) (i32.wrap_i64 (i64.ctz (local.get $x)))))))))
                ;; the run reaching the block's last byte goes on into the next block
                (local.set $carry (i32.wrap_i64 (i64.clz (i64.xor (local.get $m) (i64.const -1)))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (br $next)))
    (i32.const -1))

  ;; lineStarts(start, end, len, out, cap): the start of each line in [start, end) holding a run
  ;; (where findRun finds one, then on from the next line), written to out as i32s, at most cap of
  ;; them; answers how many. Where it stopped (end, or the next line to look at when out is full)
  ;; is left at 48.
  (func (export "lineStarts") (param $start i32) (param $end i32) (param $len i32) (param $out i32) (param $cap i32) (result i32)
    (local $from i32) (local $at i32) (local $n i32) (local $edge i32)
    (local.set $from (local.get $start))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $from) (local.get $end)))
        (br_if $done (i32.ge_u (local.get $n) (local.get $cap)))
        (local.set $at (call $findRun (local.get $from) (local.get $end) (local.get $len)))
        (if (i32.lt_s (local.get $at) (i32.const 0))
          (then (local.set $from (local.get $end)) (br $done)))
        ;; back to the line's start (lines begin at `from` or after a newline)
        (local.set $edge (local.get $at))
        (block $back
          (loop $left
            (br_if $back (i32.le_u (local.get $edge) (local.get $from)))
            (br_if $back (i32.eq (i32.load8_u (i32.sub (local.get $edge) (i32.const 1))) (i32.const 10)))
            (local.set $edge (i32.sub (local.get $edge) (i32.const 1)))
            (br $left)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $edge))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        ;; on past the line's end
        (local.set $edge (local.get $at))
        (block $forth
          (loop $right
            (br_if $forth (i32.ge_u (local.get $edge) (local.get $end)))
            (br_if $forth (i32.eq (i32.load8_u (local.get $edge)) (i32.const 10)))
            (local.set $edge (i32.add (local.get $edge) (i32.const 1)))
            (br $right)))
        (local.set $from (i32.add (local.get $edge) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 48) (local.get $from))
    (local.get $n))

  ;; plainScan(start, end, s): the lines of [start, end) holding a needle, with their numbers,
  ;; by SIMD. `start` is a line's start. The scan's state is the block of i32s at `s` (run-scan.ts
  ;; writes and reads it): +0 the needle's address, +4 its length (1-256), +8 and +12 the places in
  ;; it of the two bytes looked for first (the rarest: run-scan.ts picks them), +16 whole words,
  ;; +20 report (every matching line goes to the caller), +24 count all (go on past `keep`), +28
  ;; and +32 where the next line's bytes go and where that area ends, +36 and +40 the same for
  ;; its number and column (two i32s a line), +44 lines that may still be kept, +48 lines counted,
  ;; +52 the number of the line at `start` (in: then the line to go on from), +56 why it stopped,
  ;; +60..+72 the line handed to the caller (start, end, occurrence, number), +76 candidates that
  ;; failed, +80 the text's first byte (for the give-up rule).
  ;; 32 places a step: the two bytes compared at their places in the needle, and the step's
  ;; newlines (counted for line numbers, the last one remembered for a line's start). A line whose
  ;; occurrence is decided and has only ASCII before it is copied into the area (its bytes and a
  ;; '\n'; its number and 1-based column), while `keep` lasts, and counted; past `keep` it is only
  ;; counted (or, without count all, the scan stops: 4). Any other matching line (a neighbour of a
  ;; -w occurrence that is not ASCII: occurrence -1, the regex decides; a byte before it that is
  ;; not ASCII: plus 0x40000000, the caller counts the column) and, in report mode, every one, is
  ;; handed to the caller (2), as is a line to keep that the area has no room for. Stops: 0 at
  ;; the end; 2 after a line handed over (it answers where to go on, +52 that place's line); 3
  ;; when the text defeats the scan (most places candidates that fail: past 4,096 failures and one
  ;; per 16 bytes scanned it answers where to go on by another search; no occurrence before that
  ;; place is left on its line); 4 (see above). Reads up to 31 bytes past `end`.
  (func (export "plainScan") (param $start i32) (param $end i32) (param $s i32) (result i32)
    (local $needle i32) (local $len i32) (local $i1 i32) (local $i2 i32) (local $word i32)
    (local $report i32) (local $countAll i32) (local $bytesAt i32) (local $bytesEnd i32)
    (local $numsAt i32) (local $numsEnd i32) (local $keep i32) (local $count i32) (local $line i32)
    (local $fails i32) (local $textStart i32) (local $reason i32) (local $ret i32)
    (local $p i32) (local $last i32) (local $m i32) (local $nlm i32) (local $k i32) (local $q i32)
    (local $low i32) (local $lineBegin i32) (local $ls i32) (local $le i32) (local $ln i32)
    (local $at i32) (local $before i32) (local $after i32) (local $j i32) (local $wide i32)
    (local $f v128) (local $g v128) (local $nl v128)
    (local.set $needle (i32.load offset=0 (local.get $s)))
    (local.set $len (i32.load offset=4 (local.get $s)))
    (local.set $i1 (i32.load offset=8 (local.get $s)))
    (local.set $i2 (i32.load offset=12 (local.get $s)))
    (local.set $word (i32.load offset=16 (local.get $s)))
    (local.set $report (i32.load offset=20 (local.get $s)))
    (local.set $countAll (i32.load offset=24 (local.get $s)))
    (local.set $bytesAt (i32.load offset=28 (local.get $s)))
    (local.set $bytesEnd (i32.load offset=32 (local.get $s)))
    (local.set $numsAt (i32.load offset=36 (local.get $s)))
    (local.set $numsEnd (i32.load offset=40 (local.get $s)))
    (local.set $keep (i32.load offset=44 (local.get $s)))
    (local.set $count (i32.load offset=48 (local.get $s)))
    (local.set $line (i32.load offset=52 (local.get $s)))
    (local.set $fails (i32.load offset=76 (local.get $s)))
    (local.set $textStart (i32.load offset=80 (local.get $s)))
    (local.set $f (i8x16.splat (i32.load8_u (i32.add (local.get $needle) (local.get $i1)))))
    (local.set $g (i8x16.splat (i32.load8_u (i32.add (local.get $needle) (local.get $i2)))))
    (local.set $nl (i8x16.splat (i32.const 10)))
    ;; the last place an occurrence can start
    (local.set $last (i32.sub (local.get $end) (local.get $len)))
    (local.set $p (local.get $start))
    (local.set $lineBegin (local.get $start))
    (local.set $ret (local.get $end))
    (block $out
      (loop $next
        ;; the hot loop: steps with no candidate, their newlines counted (the last one's place kept
        ;; without a branch: one taken on half the steps cost half the speed)
        (block $found
          (loop $scan
            (br_if $out (i32.gt_s (local.get $p) (local.get $last)))
            ;; bit i of m: an occurrence may start at p + i; of nlm: byte p + i is a newline
            (local.set $m (i32.or
              (i8x16.bitmask (v128.and
                (i8x16.eq (v128.load (i32.add (local.get $p) (local.get $i1))) (local.get $f))
                (i8x16.eq (v128.load (i32.add (local.get $p) (local.get $i2))) (local.get $g))))
              (i32.shl (i8x16.bitmask (v128.and
                (i8x16.eq (v128.load offset=16 (i32.add (local.get $p) (local.get $i1))) (local.get $f))
                (i8x16.eq (v128.load offset=16 (i32.add (local.get $p) (local.get $i2))) (local.get $g))))
                (i32.const 16))))
            (local.set $nlm (i32.or
              (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (local.get $nl)))
              (i32.shl (i8x16.bitmask (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $nl))) (i32.const 16))))
            (br_if $found (local.get $m))
            (local.set $line (i32.add (local.get $line) (i32.popcnt (local.get $nlm))))
            (local.set $lineBegin (select (i32.sub (i32.add (local.get $p) (i32.const 32)) (i32.clz (local.get $nlm))) (local.get $lineBegin) (local.get $nlm)))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (br $scan)))
        ;; places past the last are not
        (if (i32.lt_u (i32.sub (local.get $last) (local.get $p)) (i32.const 31))
          (then (local.set $m (i32.and (local.get $m)
            (i32.sub (i32.shl (i32.const 2) (i32.sub (local.get $last) (local.get $p))) (i32.const 1))))))
        (block $none
          (loop $bits
            (br_if $none (i32.eqz (local.get $m)))
            (local.set $k (i32.ctz (local.get $m)))
            (local.set $q (i32.add (local.get $p) (local.get $k)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (if (i32.eqz (call $same (local.get $q) (local.get $needle) (local.get $len)))
              (then
                (local.set $fails (i32.add (local.get $fails) (i32.const 1)))
                (if (i32.gt_u (local.get $fails) (i32.add (i32.const 4096) (i32.shr_u (i32.sub (local.get $p) (local.get $textStart)) (i32.const 4))))
                  (then (local.set $reason (i32.const 3)) (local.set $ret (local.get $p)) (br $out)))
                (br $bits)))
            ;; an occurrence at q: its line starts after the step's last newline before it, or
            ;; where the line at p began; its number counts those newlines
            (local.set $low (i32.and (local.get $nlm) (i32.sub (i32.shl (i32.const 1) (local.get $k)) (i32.const 1))))
            (local.set $ls (select
              (i32.sub (i32.add (local.get $p) (i32.const 32)) (i32.clz (local.get $low)))
              (local.get $lineBegin)
              (local.get $low)))
            (local.set $ln (i32.add (local.get $line) (i32.popcnt (local.get $low))))
            (local.set $le (call $newline (i32.add (local.get $q) (local.get $len)) (local.get $end)))
            (local.set $at (local.get $q))
            ;; -w: the first occurrence on the line with no word byte next to it (-2: none; -1: a
            ;; neighbour is not ASCII, the regex decides)
            (if (local.get $word)
              (then
                (block $decided
                  (loop $try
                    (local.set $before (select (i32.load8_u (i32.sub (local.get $at) (i32.const 1))) (i32.const 32)
                      (i32.gt_u (local.get $at) (local.get $ls))))
                    (local.set $after (select (i32.load8_u (i32.add (local.get $at) (local.get $len))) (i32.const 32)
                      (i32.lt_u (i32.add (local.get $at) (local.get $len)) (local.get $le))))
                    (if (i32.ge_u (i32.or (local.get $before) (local.get $after)) (i32.const 128))
                      (then (local.set $at (i32.const -1)) (br $decided)))
                    (br_if $decided (i32.eqz (i32.or (call $isWord (local.get $before)) (call $isWord (local.get $after)))))
                    (local.set $j (i32.add (local.get $at) (i32.const 1)))
                    (local.set $at (i32.const -2))
                    (block $seen
                      (loop $scan
                        (br_if $seen (i32.gt_u (i32.add (local.get $j) (local.get $len)) (local.get $le)))
                        (if (call $same (local.get $j) (local.get $needle) (local.get $len))
                          (then (local.set $at (local.get $j)) (br $seen)))
                        (local.set $j (i32.add (local.get $j) (i32.const 1)))
                        (br $scan)))
                    (br_if $decided (i32.eq (local.get $at) (i32.const -2)))
                    (br $try)))))
            (if (i32.ne (local.get $at) (i32.const -2))
              (then
                (if (i32.eqz (i32.or (local.get $keep) (local.get $countAll)))
                  (then (local.set $reason (i32.const 4)) (local.set $ret (local.get $ls)) (br $out)))
                (local.set $wide (i32.const 0))
                (if (i32.ge_s (local.get $at) (i32.const 0))
                  (then (local.set $wide (i32.eqz (call $ascii (local.get $ls) (local.get $at))))))
                ;; handed over: in report mode, undecided, wide, or to be kept with no room for it
                (if (i32.or
                      (i32.or (local.get $report) (i32.or (local.get $wide) (i32.lt_s (local.get $at) (i32.const 0))))
                      (i32.and (i32.ne (local.get $keep) (i32.const 0)) (i32.or
                        (i32.gt_u (i32.add (local.get $bytesAt) (i32.add (i32.sub (local.get $le) (local.get $ls)) (i32.const 1))) (local.get $bytesEnd))
                        (i32.gt_u (i32.add (local.get $numsAt) (i32.const 8)) (local.get $numsEnd)))))
                  (then
                    (i32.store offset=60 (local.get $s) (local.get $ls))
                    (i32.store offset=64 (local.get $s) (local.get $le))
                    (i32.store offset=68 (local.get $s) (select (local.get $at)
                      (i32.or (local.get $at) (i32.shl (local.get $wide) (i32.const 30))) (i32.lt_s (local.get $at) (i32.const 0))))
                    (i32.store offset=72 (local.get $s) (local.get $ln))
                    (local.set $reason (i32.const 2))
                    (local.set $line (i32.add (local.get $ln) (i32.const 1)))
                    (local.set $ret (select (i32.add (local.get $le) (i32.const 1)) (local.get $end) (i32.lt_u (local.get $le) (local.get $end))))
                    (br $out)))
                (if (local.get $keep)
                  (then
                    (memory.copy (local.get $bytesAt) (local.get $ls) (i32.sub (local.get $le) (local.get $ls)))
                    (local.set $bytesAt (i32.add (local.get $bytesAt) (i32.sub (local.get $le) (local.get $ls))))
                    (i32.store8 (local.get $bytesAt) (i32.const 10))
                    (local.set $bytesAt (i32.add (local.get $bytesAt) (i32.const 1)))
                    (i32.store offset=0 (local.get $numsAt) (local.get $ln))
                    (i32.store offset=4 (local.get $numsAt) (i32.add (i32.sub (local.get $at) (local.get $ls)) (i32.const 1)))
                    (local.set $numsAt (i32.add (local.get $numsAt) (i32.const 8)))
                    (local.set $keep (i32.sub (local.get $keep) (i32.const 1)))))
                (local.set $count (i32.add (local.get $count) (i32.const 1)))))
            ;; on from the next line
            (br_if $out (i32.ge_u (local.get $le) (local.get $end)))
            (local.set $p (i32.add (local.get $le) (i32.const 1)))
            (local.set $line (i32.add (local.get $ln) (i32.const 1)))
            (local.set $lineBegin (local.get $p))
            (br $next)))
        ;; no occurrence starts in the step: its newlines
        (local.set $line (i32.add (local.get $line) (i32.popcnt (local.get $nlm))))
        (local.set $lineBegin (select (i32.sub (i32.add (local.get $p) (i32.const 32)) (i32.clz (local.get $nlm))) (local.get $lineBegin) (local.get $nlm)))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (br $next)))
    (i32.store offset=28 (local.get $s) (local.get $bytesAt))
    (i32.store offset=36 (local.get $s) (local.get $numsAt))
    (i32.store offset=44 (local.get $s) (local.get $keep))
    (i32.store offset=48 (local.get $s) (local.get $count))
    (i32.store offset=52 (local.get $s) (local.get $line))
    (i32.store offset=56 (local.get $s) (local.get $reason))
    (i32.store offset=76 (local.get $s) (local.get $fails))
    (local.get $ret))

;; literalLines(start, end, s): the starts of the lines of [start, end) holding one of up to 8
  ;; needles (ASCII-folded text when folding: 'A'-'Z' read as 'a'-'z', as matcher.ts' foldAscii),
  ;; each line once, in order, written to the out area; answers how many. `start` is a line's
  ;; start. State at `s` (i32s): +0 the needles' count, +4 fold, +8 out, +12 its capacity, +16
  ;; where it stopped (out): the end, or the line to go on from when out is full, +20 candidates
  ;; that failed, +24 the text's first byte, +28 the shortest needle's length, +32 1 when it gave
  ;; up (most places candidates that fail, as plainScan), +36 the probes' count (1-4); from +48
  ;; per needle 16 bytes (address, length); from +176 per probe 80 bytes: two places (i32s at +0,
  ;; +4), then four vectors: the bytes looked for there (splat), and what is ORed into the text's
  ;; bytes before comparing (0x20 for a letter when folding, else 0). A probe is a pair of a
  ;; needle's rarest bytes; needles with the same pair share one. 32 places a step; a needle may be
  ;; at most 32 bytes longer than the shortest (reads up to 63 bytes past `end`).
  (func (export "literalLines") (param $start i32) (param $end i32) (param $s i32) (result i32)
    (local $n i32) (local $fold i32) (local $out i32) (local $cap i32) (local $fails i32)
    (local $textStart i32) (local $last i32) (local $p i32) (local $m i32) (local $k i32)
    (local $e i32) (local $q i32) (local $count i32) (local $ls i32) (local $found i32) (local $probes i32)
    (local $a0 i32) (local $b0 i32) (local $f0 v128) (local $g0 v128) (local $mf0 v128) (local $mg0 v128) (local $a1 i32) (local $b1 i32) (local $f1 v128) (local $g1 v128) (local $mf1 v128) (local $mg1 v128) (local $a2 i32) (local $b2 i32) (local $f2 v128) (local $g2 v128) (local $mf2 v128) (local $mg2 v128) (local $a3 i32) (local $b3 i32) (local $f3 v128) (local $g3 v128) (local $mf3 v128) (local $mg3 v128)
    (local.set $n (i32.load offset=0 (local.get $s)))
    (local.set $fold (i32.load offset=4 (local.get $s)))
    (local.set $out (i32.load offset=8 (local.get $s)))
    (local.set $cap (i32.load offset=12 (local.get $s)))
    (local.set $fails (i32.load offset=20 (local.get $s)))
    (local.set $textStart (i32.load offset=24 (local.get $s)))
    (local.set $last (i32.sub (local.get $end) (i32.load offset=28 (local.get $s))))
    (local.set $probes (i32.load offset=36 (local.get $s)))
    (local.set $a0 (i32.load offset=176 (local.get $s)))
    (local.set $b0 (i32.load offset=180 (local.get $s)))
    (local.set $f0 (v128.load offset=192 (local.get $s)))
    (local.set $g0 (v128.load offset=208 (local.get $s)))
    (local.set $mf0 (v128.load offset=224 (local.get $s)))
    (local.set $mg0 (v128.load offset=240 (local.get $s)))
    (local.set $a1 (i32.load offset=256 (local.get $s)))
    (local.set $b1 (i32.load offset=260 (local.get $s)))
    (local.set $f1 (v128.load offset=272 (local.get $s)))
    (local.set $g1 (v128.load offset=288 (local.get $s)))
    (local.set $mf1 (v128.load offset=304 (local.get $s)))
    (local.set $mg1 (v128.load offset=320 (local.get $s)))
    (local.set $a2 (i32.load offset=336 (local.get $s)))
    (local.set $b2 (i32.load offset=340 (local.get $s)))
    (local.set $f2 (v128.load offset=352 (local.get $s)))
    (local.set $g2 (v128.load offset=368 (local.get $s)))
    (local.set $mf2 (v128.load offset=384 (local.get $s)))
    (local.set $mg2 (v128.load offset=400 (local.get $s)))
    (local.set $a3 (i32.load offset=416 (local.get $s)))
    (local.set $b3 (i32.load offset=420 (local.get $s)))
    (local.set $f3 (v128.load offset=432 (local.get $s)))
    (local.set $g3 (v128.load offset=448 (local.get $s)))
    (local.set $mf3 (v128.load offset=464 (local.get $s)))
    (local.set $mg3 (v128.load offset=480 (local.get $s)))
    (i32.store offset=32 (local.get $s) (i32.const 0))
    (local.set $p (local.get $start))
    (block $out
      (loop $next
        (br_if $out (i32.ge_u (local.get $count) (local.get $cap)))
        ;; the hot loop: steps where no probe holds (bit i: a probe's two bytes are in place for an
        ;; occurrence at p + i)
        (block $found
          (loop $scan
            (br_if $out (i32.gt_s (local.get $p) (local.get $last)))
            (local.set $m (i32.or
              (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $a0))) (local.get $mf0)) (local.get $f0))
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $b0))) (local.get $mg0)) (local.get $g0))))
              (i32.shl (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $a0))) (local.get $mf0)) (local.get $f0))
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $b0))) (local.get $mg0)) (local.get $g0)))) (i32.const 16))))
            (if (i32.gt_u (local.get $probes) (i32.const 1))
              (then
                (local.set $m (i32.or (local.get $m) (i32.or
              (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $a1))) (local.get $mf1)) (local.get $f1))
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $b1))) (local.get $mg1)) (local.get $g1))))
              (i32.shl (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $a1))) (local.get $mf1)) (local.get $f1))
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $b1))) (local.get $mg1)) (local.get $g1)))) (i32.const 16)))))
                (if (i32.gt_u (local.get $probes) (i32.const 2))
                  (then
                    (local.set $m (i32.or (local.get $m) (i32.or
              (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $a2))) (local.get $mf2)) (local.get $f2))
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $b2))) (local.get $mg2)) (local.get $g2))))
              (i32.shl (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $a2))) (local.get $mf2)) (local.get $f2))
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $b2))) (local.get $mg2)) (local.get $g2)))) (i32.const 16)))))
                    (if (i32.gt_u (local.get $probes) (i32.const 3))
                      (then (local.set $m (i32.or (local.get $m) (i32.or
              (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $a3))) (local.get $mf3)) (local.get $f3))
                (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $b3))) (local.get $mg3)) (local.get $g3))))
              (i32.shl (i8x16.bitmask (v128.and
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $a3))) (local.get $mf3)) (local.get $f3))
                (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $p) (local.get $b3))) (local.get $mg3)) (local.get $g3)))) (i32.const 16)))))))))))
            (br_if $found (local.get $m))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (br $scan)))
        ;; places past the last are not
        (if (i32.lt_u (i32.sub (local.get $last) (local.get $p)) (i32.const 31))
          (then (local.set $m (i32.and (local.get $m)
            (i32.sub (i32.shl (i32.const 2) (i32.sub (local.get $last) (local.get $p))) (i32.const 1))))))
        (block $none
          (loop $bits
            (br_if $none (i32.eqz (local.get $m)))
            (local.set $q (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            ;; does a needle occur at q (within the text)?
            (local.set $found (i32.const 0))
            (local.set $k (i32.const 0))
            (block $checked
              (loop $each
                (br_if $checked (i32.ge_u (local.get $k) (local.get $n)))
                (local.set $e (i32.add (local.get $s) (i32.add (i32.const 48) (i32.shl (local.get $k) (i32.const 4)))))
                (if (i32.le_u (i32.add (local.get $q) (i32.load offset=4 (local.get $e))) (local.get $end))
                  (then (if (select
                      (call $sameFolded (local.get $q) (i32.load offset=0 (local.get $e)) (i32.load offset=4 (local.get $e)))
                      (call $same (local.get $q) (i32.load offset=0 (local.get $e)) (i32.load offset=4 (local.get $e)))
                      (local.get $fold))
                    (then (local.set $found (i32.const 1)) (br $checked)))))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $each)))
            (if (i32.eqz (local.get $found))
              (then
                (local.set $fails (i32.add (local.get $fails) (i32.const 1)))
                (if (i32.gt_u (local.get $fails) (i32.add (i32.const 4096) (i32.shr_u (i32.sub (local.get $p) (local.get $textStart)) (i32.const 4))))
                  (then (i32.store offset=32 (local.get $s) (i32.const 1)) (br $out)))
                (br $bits)))
            ;; its line: written once, then on from the next line
            (local.set $ls (local.get $q))
            (block $back
              (loop $left
                (br_if $back (i32.le_u (local.get $ls) (local.get $start)))
                (br_if $back (i32.eq (i32.load8_u (i32.sub (local.get $ls) (i32.const 1))) (i32.const 10)))
                (local.set $ls (i32.sub (local.get $ls) (i32.const 1)))
                (br $left)))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $ls))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $p (i32.add (call $newline (i32.add (local.get $q) (i32.const 1)) (local.get $end)) (i32.const 1)))
            (br $next)))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (br $next)))
    (i32.store offset=16 (local.get $s) (select (local.get $end) (local.get $p) (i32.gt_s (local.get $p) (local.get $end))))
    (i32.store offset=20 (local.get $s) (local.get $fails))
    (local.get $count))

;; postingList(p, count, out): a posting list's `count` delta varints at p (from -1: the first
  ;; is the id) as u32 ids at out; answers the address after the last byte read (postings.ts
  ;; checks it against the list's length). Ids are u32: compared unsigned, wrapping as u32.
  (func (export "postingList") (param $p i32) (param $count i32) (param $out i32) (result i32)
    (local $prev i32) (local $v i32) (local $b i32) (local $stop i32)
    (local.set $prev (i32.const -1))
    (local.set $stop (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $out) (local.get $stop)))
        (local.set $b (i32.load8_u (local.get $p)))
        (local.set $v (i32.and (local.get $b) (i32.const 0x7f)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.and (local.get $b) (i32.const 0x80))
          (then
            (local.set $b (i32.load8_u (local.get $p)))
            (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 7))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (if (i32.and (local.get $b) (i32.const 0x80))
              (then
                (local.set $b (i32.load8_u (local.get $p)))
                (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 14))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (if (i32.and (local.get $b) (i32.const 0x80))
                  (then
                    (local.set $b (i32.load8_u (local.get $p)))
                    (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 21))))
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (if (i32.and (local.get $b) (i32.const 0x80))
                      (then
                        (local.set $b (i32.load8_u (local.get $p)))
                        (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 28))))
                        (local.set $p (i32.add (local.get $p) (i32.const 1)))))))))))
        (local.set $prev (i32.add (local.get $prev) (i32.add (local.get $v) (i32.const 1))))
        (i32.store (local.get $out) (local.get $prev))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $next)))
    (local.get $p))

  ;; postingWithin(p, count, within, length, out): the ids of within[0, length) (sorted u32s,
  ;; length >= 1) that the list of `count` delta varints at p holds, to out; answers how many.
  ;; The address after the last byte read goes to 48, or 0 when `within` ran out first (the rest
  ;; of the list is not read).
  (func (export "postingWithin") (param $p i32) (param $count i32) (param $within i32) (param $length i32) (param $out i32) (result i32)
    (local $prev i32) (local $v i32) (local $b i32) (local $index i32) (local $i i32) (local $x i32) (local $n i32)
    (local.set $prev (i32.const -1))
    (local.set $x (i32.load (local.get $within)))
    (block $exhausted
      (block $done
        (loop $next
          (br_if $done (i32.ge_u (local.get $index) (local.get $count)))
          (local.set $index (i32.add (local.get $index) (i32.const 1)))
        (local.set $b (i32.load8_u (local.get $p)))
        (local.set $v (i32.and (local.get $b) (i32.const 0x7f)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.and (local.get $b) (i32.const 0x80))
          (then
            (local.set $b (i32.load8_u (local.get $p)))
            (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 7))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (if (i32.and (local.get $b) (i32.const 0x80))
              (then
                (local.set $b (i32.load8_u (local.get $p)))
                (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 14))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (if (i32.and (local.get $b) (i32.const 0x80))
                  (then
                    (local.set $b (i32.load8_u (local.get $p)))
                    (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 21))))
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (if (i32.and (local.get $b) (i32.const 0x80))
                      (then
                        (local.set $b (i32.load8_u (local.get $p)))
                        (local.set $v (i32.or (local.get $v) (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (i32.const 28))))
                        (local.set $p (i32.add (local.get $p) (i32.const 1)))))))))))
        (local.set $prev (i32.add (local.get $prev) (i32.add (local.get $v) (i32.const 1))))
          (br_if $next (i32.gt_u (local.get $x) (local.get $prev)))
          (block $caught
            (loop $advance
              (br_if $caught (i32.ge_u (local.get $x) (local.get $prev)))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br_if $exhausted (i32.ge_u (local.get $i) (local.get $length)))
              (local.set $x (i32.load (i32.add (local.get $within) (i32.shl (local.get $i) (i32.const 2)))))
              (br $advance)))
          (if (i32.eq (local.get $x) (local.get $prev))
            (then
              (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $x))
              (local.set $n (i32.add (local.get $n) (i32.const 1)))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br_if $exhausted (i32.ge_u (local.get $i) (local.get $length)))
              (local.set $x (i32.load (i32.add (local.get $within) (i32.shl (local.get $i) (i32.const 2)))))))
          (br $next)))
      (i32.store (i32.const 48) (local.get $p))
      (return (local.get $n)))
    (i32.store (i32.const 48) (i32.const 0))
    (local.get $n))

  ;; fold16(v): 'A'-'Z' lanes as 'a'-'z'.
  (func $fold16 (param $v v128) (result v128)
    (i8x16.add (local.get $v) (v128.and
      (i8x16.lt_u (i8x16.sub (local.get $v) (i8x16.splat (i32.const 0x41))) (i8x16.splat (i32.const 26)))
      (i8x16.splat (i32.const 0x20)))))

  ;; sameFolded(at, needle, len): same, the text ASCII-folded.
  (func $sameFolded (param $at i32) (param $needle i32) (param $len i32) (result i32)
    (local $k i32) (local $rest i32)
    (block $tail
      (loop $each
        (br_if $tail (i32.lt_u (i32.sub (local.get $len) (local.get $k)) (i32.const 16)))
        (if (i32.eqz (i8x16.all_true (i8x16.eq
              (call $fold16 (v128.load (i32.add (local.get $at) (local.get $k))))
              (v128.load (i32.add (local.get $needle) (local.get $k))))))
          (then (return (i32.const 0))))
        (local.set $k (i32.add (local.get $k) (i32.const 16)))
        (br $each)))
    (local.set $rest (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $len) (local.get $k))) (i32.const 1)))
    (i32.eq (local.get $rest) (i32.and (local.get $rest) (i8x16.bitmask (i8x16.eq
      (call $fold16 (v128.load (i32.add (local.get $at) (local.get $k))))
      (v128.load (i32.add (local.get $needle) (local.get $k))))))))

  ;; same(at, needle, len): whether the len bytes at `at` are the needle's, 16 a step (reads up to
  ;; 15 bytes past both).
  (func $same (param $at i32) (param $needle i32) (param $len i32) (result i32)
    (local $k i32) (local $rest i32)
    (block $tail
      (loop $each
        (br_if $tail (i32.lt_u (i32.sub (local.get $len) (local.get $k)) (i32.const 16)))
        (if (i32.eqz (i8x16.all_true (i8x16.eq
              (v128.load (i32.add (local.get $at) (local.get $k)))
              (v128.load (i32.add (local.get $needle) (local.get $k))))))
          (then (return (i32.const 0))))
        (local.set $k (i32.add (local.get $k) (i32.const 16)))
        (br $each)))
    (local.set $rest (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $len) (local.get $k))) (i32.const 1)))
    (i32.eq (local.get $rest) (i32.and (local.get $rest) (i8x16.bitmask (i8x16.eq
      (v128.load (i32.add (local.get $at) (local.get $k)))
      (v128.load (i32.add (local.get $needle) (local.get $k))))))))

  ;; newline(from, end): the first '\n' in [from, end), or end; 16 bytes a step (reads up to 15
  ;; bytes past end).
  (func $newline (param $from i32) (param $end i32) (result i32)
    (local $m i32)
    (block $found
      (loop $step
        (br_if $found (i32.ge_u (local.get $from) (local.get $end)))
        (local.set $m (i8x16.bitmask (i8x16.eq (v128.load (local.get $from)) (i8x16.splat (i32.const 10)))))
        (if (local.get $m)
          (then
            (local.set $from (i32.add (local.get $from) (i32.ctz (local.get $m))))
            (br $found)))
        (local.set $from (i32.add (local.get $from) (i32.const 16)))
        (br $step)))
    (select (local.get $from) (local.get $end) (i32.lt_u (local.get $from) (local.get $end))))

  ;; ascii(from, to): whether every byte in [from, to) is below 0x80; 16 a step (reads up to 15
  ;; bytes past to).
  (func $ascii (param $from i32) (param $to i32) (result i32)
    (local $m i32)
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
        (local.set $m (i8x16.bitmask (v128.load (local.get $from))))
        (if (i32.lt_u (i32.sub (local.get $to) (local.get $from)) (i32.const 16))
          (then (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $to) (local.get $from))) (i32.const 1))))))
        (if (local.get $m) (then (return (i32.const 0))))
        (local.set $from (i32.add (local.get $from) (i32.const 16)))
        (br $step)))
    (i32.const 1))

  ;; isWord(byte): an ASCII letter, digit or '_'.
  (func $isWord (param $b i32) (result i32)
    (i32.or
      (i32.or
        (i32.lt_u (i32.sub (local.get $b) (i32.const 48)) (i32.const 10))
        (i32.lt_u (i32.sub (i32.or (local.get $b) (i32.const 32)) (i32.const 97)) (i32.const 26)))
      (i32.eq (local.get $b) (i32.const 95))))

  ;; countNewlines(start, end): how many '\n' bytes are in [start, end). 16 bytes a step: each
  ;; lane counts its newlines (a byte, flushed to the total every 255 steps).
  (func $countNewlines (export "countNewlines") (param $start i32) (param $end i32) (result i32)
    (local $p i32) (local $n i32) (local $k i32) (local $acc v128) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $p (local.get $start))
    (block $done
      (loop $outer
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $flush
          (loop $inner
            (br_if $flush (i32.ge_u (local.get $k) (i32.const 255)))
            (br_if $flush (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
            ;; a newline lane compares to -1: subtracting adds one
            (local.set $acc (i8x16.sub (local.get $acc) (i8x16.eq (v128.load (local.get $p)) (local.get $nl))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $inner)))
        (local.set $acc (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
        (local.set $n (i32.add (local.get $n)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc))))))
        (br $outer)))
    ;; the last bytes, one at a time
    (block $tail
      (loop $rest
        (br_if $tail (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
          (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $rest)))
    (local.get $n))
)
