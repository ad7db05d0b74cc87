//! How a float prints after kustomize's JSON round trip.
//!
//! Go's `encoding/json` writes a float64 in the shortest form that reads back exactly, in plain
//! notation (`100000000000000000000`) unless it is below 1e-6 or at least 1e21. go-yaml v2 then
//! reads that text again: an integer-looking text that fits int64 or uint64 becomes an integer
//! (so `1.0` prints `1`, `1.5e10` prints `15000000000`), anything else a float64, which v2 prints
//! with `strconv.FormatFloat(f, 'g', -1, 64)` (`0.5`, `1e+20`, `1e-07`, `1.2345675e+06`).

/// Formats a float the way kustomize prints it. NaN and infinities, which kustomize cannot
/// marshal to JSON at all, print as YAML's `.nan`, `.inf` and `-.inf`.
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    if f == 0.0 {
        return "0".to_owned(); // JSON "-0" reads back as the integer 0
    }
    let (digits, exp) = shortest_digits(f.abs());
    let neg = f < 0.0;
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // JSON's text is the shortest digits padded with zeros; v2 reads it back as an integer
        // when it fits int64 or uint64.
        let mut text = String::with_capacity(24);
        if neg {
            text.push('-');
        }
        text.push_str(&digits);
        for _ in digits.len()..=exp as usize {
            text.push('0');
        }
        if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
            return text;
        }
    }
    go_format_g(neg, &digits, exp)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, with go-yaml's `.inf`, `-.inf` and `.nan`:
/// the text go-yaml v3 gives a float64 it encodes (kyaml's nodes made from JSON values).
pub fn format_float_g(f: f64) -> String {
    if f.is_nan() {
        return ".nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let (digits, exp) = shortest_digits(f.abs());
    go_format_g(f < 0.0, &digits, exp)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` from the shortest digits of a finite, non-zero
/// float and the decimal exponent of the first digit.
fn go_format_g(neg: bool, digits: &str, exp: i32) -> String {
    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    // Shortest 'g' switches to exponent form below 1e-4 and from 1e6 up ("precision 6").
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let abs = exp.unsigned_abs();
        if abs < 10 {
            out.push('0');
        }
        out.push_str(&abs.to_string());
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// The shortest decimal digits that read back as `f` (finite, positive) and the decimal
/// exponent of the first digit, as Go computes them.
///
/// Rust's formatter finds the same shortest digits but breaks an exact tie between two
/// candidates upwards, where Go rounds half to even (718476926396777.25 prints as
/// 7.184769263967772e+14 in kustomize), so a tie that ended odd is moved down.
fn shortest_digits(f: f64) -> (String, i32) {
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let last = digits.as_bytes().last().copied().unwrap_or(b'0');
    if last % 2 == 1 && digits.len() > 1 {
        let mut lower = digits.clone();
        lower.pop();
        lower.push(char::from(last - 1));
        let lower_reads_back = format!("{lower}e{}", exp - (lower.len() as i32 - 1))
            .parse::<f64>()
            .is_ok_and(|g| g == f);
        if lower_reads_back && is_exact_midpoint(f, &digits, exp) {
            digits = lower.trim_end_matches('0').to_owned();
        }
    }
    (digits, exp)
}

/// Whether `f` lies exactly halfway between `digits` and `digits` minus one unit in the last
/// place (`digits` times ten to the power `exp`, first digit first).
fn is_exact_midpoint(f: f64, digits: &str, exp: i32) -> bool {
    // f = m * 2^e exactly.
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    // The midpoint is (2d - 1) * 10^k / 2 with d the digits as an integer.
    let Ok(d) = digits.parse::<u64>() else {
        return false;
    };
    let k = exp - (digits.len() as i32 - 1);
    // Compare 2 * m * 2^e with (2d - 1) * 2^k * 5^k, moving negative powers across.
    let twos = e + 1 - k;
    let mut left = BigUint::from(m);
    let mut right = BigUint::from(2 * d - 1);
    left.mul_pow(2, twos.max(0));
    right.mul_pow(2, (-twos).max(0));
    right.mul_pow(5, k.max(0));
    left.mul_pow(5, (-k).max(0));
    left == right
}

/// Just enough of an unsigned big integer for [`is_exact_midpoint`].
#[derive(PartialEq)]
struct BigUint(Vec<u32>);

impl BigUint {
    fn from(v: u64) -> BigUint {
        BigUint(vec![v as u32, (v >> 32) as u32])
    }

    fn mul_pow(&mut self, base: u32, times: i32) {
        for _ in 0..times {
            let mut carry = 0u64;
            for limb in &mut self.0 {
                let x = u64::from(*limb) * u64::from(base) + carry;
                *limb = x as u32;
                carry = x >> 32;
            }
            if carry > 0 {
                self.0.push(carry as u32);
            }
        }
        while self.0.len() > 1 && self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::format_float;

    #[test]
    // The tie cases are written with every digit of their exact binary value on purpose.
    #[allow(clippy::excessive_precision)]
    fn floats_as_kustomize_prints_them() {
        // Each pair checked against `kubectl kustomize` (kustomize v5.5.0).
        let cases: &[(f64, &str)] = &[
            (0.5, "0.5"),
            (1.0, "1"),
            (-1.0, "-1"),
            (0.0, "0"),
            (-0.0, "0"),
            (1.2, "1.2"),
            (0.1, "0.1"),
            (std::f64::consts::PI, "3.141592653589793"),
            (1.5e10, "15000000000"),
            (1e15, "1000000000000000"),
            (1e20, "1e+20"),
            (1.8e19, "18000000000000000000"),
            (-1e19, "-1e+19"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-6, "1e-06"),
            (1e-7, "1e-07"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (123456.5, "123456.5"),
            (1234567.5, "1.2345675e+06"),
            (-1234567.5, "-1.2345675e+06"),
            (100000.5, "100000.5"),
            (9007199254740993.0, "9007199254740992"),
            (9223372036854775807.0, "9223372036854776000"),
            (12345678901234567890.0, "12345678901234567000"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            // Exact ties between two shortest forms round half to even, as in Go.
            (718476926396777.25, "7.184769263967772e+14"),
            (718476926396777.75, "7.184769263967778e+14"),
            (718476926396776.25, "7.184769263967762e+14"),
            (718476926396776.75, "7.184769263967768e+14"),
            (1125899906842624.5, "1.1258999068426245e+15"),
            (27021597764222976.0, "27021597764222976"),
        ];
        for &(f, want) in cases {
            assert_eq!(format_float(f), want, "format_float({f:e})");
        }
    }
}
