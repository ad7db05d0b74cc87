//! The order in which go-yaml v2 prints mapping keys.
//!
//! v2 sorts keys with `keyList.Less`, a "natural" comparison: at the first differing character,
//! letters compare by code point, a non-letter sorts before a letter, and when both are
//! non-letters the digit runs starting there compare as numbers. That relation is not transitive
//! (`x1y < x2y < x10y < x1y`), and Go's sort over a randomly ordered map then prints such keys in
//! an order that changes from run to run. kbuild applies the same comparison with its own merge
//! sort over keys first put in byte order, so the result is the same as kustomize's whenever
//! kustomize's is deterministic, and the same on every run when it is not.

use std::cmp::Ordering;
use std::sync::LazyLock;

use regex::Regex;

/// Sorts `items` by their keys in go-yaml v2's order.
pub(super) fn sort_keys<T>(items: &mut Vec<(&str, T)>) {
    items.sort_unstable_by(|a, b| a.0.cmp(b.0));
    merge_sort(items, |a, b| go_key_less(a.0, b.0));
}

/// Mappings with at most this many keys are ordered by [`small_order`].
pub(super) const SMALL: usize = 32;

/// Puts in `order[..keys.len()]` the positions of `keys` in the order [`sort_keys`] gives
/// them, without allocating, and in `classes[i]` the union of key `i`'s byte classes. Returns false, leaving `order` unspecified, for what it does
/// not handle: more than [`SMALL`] keys, a key with a control character or a non-ASCII one
/// (whose JSON round trip may change it), or two equal keys (whose order after `sort_keys`'s
/// unstable first pass is not specified).
pub(super) fn small_order(
    keys: &[&str],
    order: &mut [u8; SMALL],
    classes: &mut [u8; SMALL],
) -> bool {
    let n = keys.len();
    if n > SMALL {
        return false;
    }
    let mut seen = 0;
    for (k, slot) in keys.iter().zip(classes.iter_mut()) {
        *slot = super::style::classes(k.as_bytes());
        seen |= *slot;
    }
    if seen & super::style::SLOW != 0 {
        return false;
    }
    let order = &mut order[..n];
    for (i, slot) in order.iter_mut().enumerate() {
        *slot = i as u8;
    }
    let key = |i: u8| keys[usize::from(i)].as_bytes();
    if seen & super::style::DIGIT == 0 {
        // Without digits `go_key_less` is a total order (byte by byte, non-letters before
        // letters, a prefix first), so the merge sort's result is the one sorted order.
        insertion_sort(order, |a, b| letter_last_cmp(key(a), key(b)))
    } else {
        // Digit runs can make the order inconsistent: follow `sort_keys` step by step.
        if !insertion_sort(order, |a, b| key(a).cmp(key(b))) {
            return false;
        }
        let mut scratch = [0u8; SMALL];
        merge_sort_small(order, &mut scratch[..n], |a, b| runes_less(key(a), key(b)));
        true
    }
}

/// `go_key_less` for ASCII keys without digits, as a total order.
fn letter_last_cmp(a: &[u8], b: &[u8]) -> Ordering {
    // A byte's rank: letters after every other byte, each class in byte order.
    static RANK: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut c = 0;
        while c < 256 {
            let b = c as u8;
            t[c] = if b.is_ascii_alphabetic() { b | 0x80 } else { b };
            c += 1;
        }
        t
    };
    let n = a.len().min(b.len());
    let mut i = 0;
    // Eight bytes at a time past common prefixes (`app.kubernetes.io/...`): the lowest
    // differing bit of the little-endian words is in the first differing byte.
    while i + 8 <= n {
        let word = |s: &[u8]| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or([0; 8]));
        let diff = word(a) ^ word(b);
        if diff != 0 {
            i += (diff.trailing_zeros() / 8) as usize;
            return RANK[usize::from(a[i])].cmp(&RANK[usize::from(b[i])]);
        }
        i += 8;
    }
    while i < n {
        let (x, y) = (a[i], b[i]);
        if x != y {
            return RANK[usize::from(x)].cmp(&RANK[usize::from(y)]);
        }
        i += 1;
    }
    a.len().cmp(&b.len())
}

/// Sorts `items` by `cmp`; false when two items compare equal (the order then is a valid
/// sort, but not necessarily the one another algorithm would give).
fn insertion_sort(items: &mut [u8], cmp: impl Fn(u8, u8) -> Ordering) -> bool {
    for i in 1..items.len() {
        let x = items[i];
        let mut j = i;
        loop {
            if j == 0 {
                break;
            }
            match cmp(x, items[j - 1]) {
                Ordering::Less => {
                    items[j] = items[j - 1];
                    j -= 1;
                }
                Ordering::Equal => return false,
                Ordering::Greater => break,
            }
        }
        items[j] = x;
    }
    true
}

/// [`merge_sort`] over positions, with the same merges in the same order.
fn merge_sort_small(items: &mut [u8], scratch: &mut [u8], less: impl Fn(u8, u8) -> bool) {
    let n = items.len();
    let mut width = 1;
    let (mut src, mut dst) = (items, scratch);
    let mut in_scratch = false;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            for slot in &mut dst[start..end] {
                let take_right = j < end && (i >= mid || less(src[j], src[i]));
                if take_right {
                    *slot = src[j];
                    j += 1;
                } else {
                    *slot = src[i];
                    i += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut src, &mut dst);
        in_scratch = !in_scratch;
        width *= 2;
    }
    if in_scratch {
        dst.copy_from_slice(src);
    }
}

/// A stable merge sort that needs no total order from `less`: it always terminates with a
/// permutation (the standard library's sorts may panic when the order is inconsistent).
fn merge_sort<T>(items: &mut Vec<T>, less: impl Fn(&T, &T) -> bool) {
    if items.len() < 2 {
        return;
    }
    let mut src: Vec<Option<T>> = items.drain(..).map(Some).collect();
    let n = src.len();
    let mut dst: Vec<Option<T>> = (0..n).map(|_| None).collect();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            merge(&mut src, &mut dst, start, mid, end, &less);
            start = end;
        }
        std::mem::swap(&mut src, &mut dst);
        width *= 2;
    }
    items.extend(src.into_iter().flatten());
}

/// Moves the sorted runs `src[start..mid]` and `src[mid..end]` into `dst[start..end]`.
fn merge<T>(
    src: &mut [Option<T>],
    dst: &mut [Option<T>],
    start: usize,
    mid: usize,
    end: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    let (mut i, mut j) = (start, mid);
    for slot in &mut dst[start..end] {
        let take_right = match (
            src.get(i).filter(|_| i < mid),
            src.get(j).filter(|_| j < end),
        ) {
            (Some(Some(left)), Some(Some(right))) => less(right, left),
            (Some(_), _) => false,
            _ => true,
        };
        let from = if take_right { &mut j } else { &mut i };
        *slot = src[*from].take();
        *from += 1;
    }
}

/// go-yaml v2's `keyList.Less` for two string keys.
pub(super) fn go_key_less(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        return runes_less(a.as_bytes(), b.as_bytes());
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    runes_less(&ar, &br)
}

/// `keyList.Less` over the keys' runes (bytes stand for runes when both keys are ASCII).
fn runes_less<C: Copy + Into<char>>(ar: &[C], br: &[C]) -> bool {
    for i in 0..ar.len().min(br.len()) {
        let (ac, bc): (char, char) = (ar[i].into(), br[i].into());
        if ac == bc {
            continue;
        }
        let (al, bl) = (is_letter(ac), is_letter(bc));
        if al && bl {
            return ac < bc;
        }
        if al || bl {
            return bl;
        }
        return match digit_runs(ar, br, i) {
            Ordering::Equal => ac < bc,
            ord => ord == Ordering::Less,
        };
    }
    ar.len() < br.len()
}

/// Compares the digit runs starting at `i` as v2 does: by value (Go's wrapping int64
/// arithmetic), then by length. A non-zero digit just before `i` makes both values start
/// from 1, so that leading zeros of the rest count.
fn digit_runs<C: Copy + Into<char>>(ar: &[C], br: &[C], i: usize) -> Ordering {
    let digit = |c: &C| is_digit((*c).into());
    let (mut an, mut bn) = (0i64, 0i64);
    if ar[i].into() == '0' || br[i].into() == '0' {
        let mut before = ar[..i].iter().rev().take_while(|c| digit(c));
        if before.any(|&c| c.into() != '0') {
            (an, bn) = (1, 1);
        }
    }
    let run = |r: &[C], mut n: i64| {
        let len = r[i..].iter().take_while(|c| digit(c)).count();
        for &c in &r[i..i + len] {
            n = n
                .wrapping_mul(10)
                .wrapping_add(c.into() as i64 - '0' as i64);
        }
        (n, len)
    };
    let ((an, alen), (bn, blen)) = (run(ar, an), run(br, bn));
    an.cmp(&bn).then(alen.cmp(&blen))
}

/// Go's `unicode.IsLetter` (general category L).
fn is_letter(c: char) -> bool {
    static LETTER: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\p{L}$").ok());
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    LETTER
        .as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut [0; 4])))
}

/// Go's `unicode.IsDigit` (general category Nd).
fn is_digit(c: char) -> bool {
    static DIGIT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\p{Nd}$").ok());
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    DIGIT
        .as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut [0; 4])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(keys: &[&'static str]) -> Vec<&'static str> {
        let mut items: Vec<(&str, ())> = keys.iter().map(|k| (*k, ())).collect();
        sort_keys(&mut items);
        items.into_iter().map(|(k, ())| k).collect()
    }

    #[test]
    fn conformance_keys_order() {
        // The `keys` conformance case, as kustomize v5.5.0 prints it.
        let want = [
            "-k", ".k", "_x", "1", "9", "10", "A", "Ab", "B2", "Z", "a", "a-b", "a.b", "a_b", "a1",
            "a2", "a10", "aB", "b", "ü",
        ];
        let mut input = want;
        input.reverse();
        assert_eq!(sorted(&input), want);
    }

    #[test]
    fn digit_runs_compare_as_numbers() {
        assert_eq!(
            sorted(&["a100", "a20", "a3", "a003", "a03"]),
            ["a3", "a03", "a003", "a20", "a100"]
        );
        assert_eq!(sorted(&["a105", "a12", "a1"]), ["a1", "a12", "a105"]);
        assert_eq!(sorted(&["a-", "a0", "a"]), ["a", "a-", "a0"]);
        assert_eq!(sorted(&["", " ", "a"]), ["", " ", "a"]);
    }

    #[test]
    fn inconsistent_keys_sort_the_same_whatever_the_input_order() {
        let a = sorted(&["x1y", "x2y", "x10y"]);
        let b = sorted(&["x10y", "x2y", "x1y"]);
        let c = sorted(&["x2y", "x1y", "x10y"]);
        assert_eq!(a, b);
        assert_eq!(a, c);
        // Where kustomize's order is deterministic, kbuild's matches it.
        assert_eq!(sorted(&["x1y", "x10y"]), ["x10y", "x1y"]);
    }

    /// `small_order`'s result, as keys, or None when it declines.
    fn small_sorted(keys: &[&'static str]) -> Option<Vec<&'static str>> {
        let mut order = [0u8; SMALL];
        small_order(keys, &mut order, &mut [0; SMALL]).then(|| {
            order[..keys.len()]
                .iter()
                .map(|&i| keys[usize::from(i)])
                .collect()
        })
    }

    #[test]
    fn small_order_matches_sort_keys() {
        // Keys from a small alphabet, in pseudo-random sets and orders (xorshift).
        let alphabet = [
            "a", "b", "B", "0", "1", "2", "9", "-", ".", "_", "/", "x1", "10", "00",
        ];
        let mut pool: Vec<&'static str> = Vec::new();
        for a in alphabet {
            pool.push(a);
            for b in alphabet {
                pool.push(Box::leak(format!("{a}{b}").into_boxed_str()));
                for c in ["y", "0", "3"] {
                    pool.push(Box::leak(format!("{a}{b}{c}").into_boxed_str()));
                }
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000 {
            let n = (next() % 33) as usize;
            let mut keys: Vec<&'static str> = Vec::new();
            while keys.len() < n {
                let k = pool[(next() % pool.len() as u64) as usize];
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            if round % 2 == 0 {
                // Digit-free keys take the total-order path.
                keys.retain(|k| !k.bytes().any(|c| c.is_ascii_digit()));
            }
            assert_eq!(small_sorted(&keys), Some(sorted(&keys)), "{keys:?}");
        }
    }

    #[test]
    fn small_order_compares_long_common_prefixes() {
        // Keys sharing 8+ byte prefixes, differing at every position of a word.
        let mut pool: Vec<&'static str> = Vec::new();
        for prefix in [
            "",
            "app.kubernetes.io/",
            "abcdefg",
            "abcdefgh",
            "abcdefghijklmnop",
        ] {
            for suffix in [
                "",
                "a",
                "A",
                "-",
                "_x",
                "name",
                "Name",
                "part-of",
                "version.z",
            ] {
                pool.push(Box::leak(format!("{prefix}{suffix}").into_boxed_str()));
            }
        }
        pool.sort_unstable();
        pool.dedup();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..5_000 {
            let mut keys = pool.clone();
            for i in (1..keys.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                keys.swap(i, (state % (i as u64 + 1)) as usize);
            }
            keys.truncate((state % 33) as usize);
            assert_eq!(small_sorted(&keys), Some(sorted(&keys)), "{keys:?}");
        }
    }

    #[test]
    fn small_order_declines_what_it_does_not_handle() {
        assert_eq!(small_sorted(&["a", "a"]), None);
        assert_eq!(small_sorted(&["b", "\u{e9}"]), None);
        assert_eq!(small_sorted(&["b", "a\tb"]), None);
        let many: Vec<&'static str> = (0..33)
            .map(|i| &*Box::leak(format!("k{i}").into_boxed_str()))
            .collect();
        assert_eq!(small_sorted(&many), None);
        assert_eq!(small_sorted(&[]), Some(vec![]));
    }

    #[test]
    fn merge_sort_handles_many_keys() {
        let keys: Vec<String> = (0..1000).rev().map(|i| format!("k{i}")).collect();
        let mut items: Vec<(&str, usize)> = keys.iter().map(|k| (k.as_str(), 0)).collect();
        sort_keys(&mut items);
        let got: Vec<&str> = items.iter().map(|(k, _)| *k).collect();
        let want: Vec<String> = (0..1000).map(|i| format!("k{i}")).collect();
        assert_eq!(got, want);
    }
}
