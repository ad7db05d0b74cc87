//! go-yaml's timestamps.
//!
//! go-yaml (v2 and v3) resolves an unquoted scalar such as `2024-1-1` or
//! `2024-01-01 10:00:00` to a `time.Time` by trying four `time.Parse` layouts.
//! kustomize then converts each resource to JSON, which prints the time in
//! RFC 3339 form, so `2024-01-01` comes out as `"2024-01-01T00:00:00Z"`.
//! This module reproduces both steps without Go's time package.

/// The layouts go-yaml tries, in order (`resolve.go`, `allowedTimestampFormats`):
/// `2006-1-2T15:4:5.999999999Z07:00`, the same with a lower-case `t`,
/// `2006-1-2 15:4:5.999999999` (no zone) and `2006-1-2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timestamp {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
    /// Zone offset in minutes east of UTC; 0 for `Z` and for layouts without a zone.
    offset_minutes: i32,
}

impl Timestamp {
    /// Parses `s` the way go-yaml's `parseTimestamp` does; `None` when no layout matches
    /// or a field is out of range (Go's `time.Parse` rejects `2023-2-29` and `24:00:00`).
    pub(crate) fn parse(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        // go-yaml's quick check: every layout starts with four digits and a dash.
        if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
            return None;
        }
        let mut p = Cursor { b, i: 5 };
        let year = digits_value(&b[..4]);
        let month = p.num()?;
        p.eat(b'-')?;
        let day = p.num()?;
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(month, year) {
            return None;
        }
        let mut t = Timestamp {
            year,
            month,
            day,
            hour: 0,
            minute: 0,
            second: 0,
            nanos: 0,
            offset_minutes: 0,
        };
        let zoned = match p.peek() {
            None => return Some(t),
            Some(b'T' | b't') => {
                p.i += 1;
                true
            }
            Some(b' ') => {
                // A space in a Go layout matches one or more spaces.
                while p.peek() == Some(b' ') {
                    p.i += 1;
                }
                false
            }
            Some(_) => return None,
        };
        t.hour = p.num().filter(|h| *h < 24)?;
        p.eat(b':')?;
        t.minute = p.num().filter(|m| *m < 60)?;
        p.eat(b':')?;
        t.second = p.num().filter(|s| *s < 60)?;
        t.nanos = p.fraction();
        if zoned {
            t.offset_minutes = p.zone()?;
        }
        p.at_end().then_some(t)
    }

    /// The RFC 3339 text Go's `time.Time.MarshalJSON` prints: fraction without trailing
    /// zeros, `Z` for a zero offset, `±hh:mm` otherwise.
    pub(crate) fn to_rfc3339(self) -> String {
        let mut out = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        );
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            out.push('.');
            out.push_str(frac.trim_end_matches('0'));
        }
        if self.offset_minutes == 0 {
            out.push('Z');
        } else {
            let sign = if self.offset_minutes < 0 { '-' } else { '+' };
            let m = self.offset_minutes.unsigned_abs();
            out.push_str(&format!("{sign}{:02}:{:02}", m / 60, m % 60));
        }
        out
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn at_end(&self) -> bool {
        self.i == self.b.len()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.i += 1)
    }

    fn digit(&self, at: usize) -> Option<u32> {
        self.b
            .get(at)
            .filter(|c| c.is_ascii_digit())
            .map(|c| u32::from(c - b'0'))
    }

    /// Go's `getnum(value, false)`: one or two digits.
    fn num(&mut self) -> Option<u32> {
        let first = self.digit(self.i)?;
        self.i += 1;
        match self.digit(self.i) {
            Some(second) => {
                self.i += 1;
                Some(first * 10 + second)
            }
            None => Some(first),
        }
    }

    /// Optional fractional seconds after `.` or `,`: any number of digits, of which
    /// Go keeps the first nine.
    fn fraction(&mut self) -> u32 {
        if !matches!(self.peek(), Some(b'.' | b',')) || self.digit(self.i + 1).is_none() {
            return 0;
        }
        self.i += 1;
        let start = self.i;
        while self.digit(self.i).is_some() {
            self.i += 1;
        }
        let digits = &self.b[start..self.i.min(start + 9)];
        digits_value(digits) * 10u32.pow(9 - digits.len() as u32)
    }

    /// Go's `Z07:00`: `Z`, or `±hh:mm` (Go accepts hours up to 24 and minutes up to 60).
    fn zone(&mut self) -> Option<i32> {
        if self.eat(b'Z').is_some() {
            return Some(0);
        }
        let z = self.b.get(self.i..self.i + 6)?;
        let all_digits = |r: &[u8]| r.iter().all(u8::is_ascii_digit);
        if z[3] != b':' || !all_digits(&z[1..3]) || !all_digits(&z[4..6]) {
            return None;
        }
        let (h, m) = (digits_value(&z[1..3]), digits_value(&z[4..6]));
        if h > 24 || m > 60 {
            return None;
        }
        let minutes = (h * 60 + m) as i32;
        self.i += 6;
        match z[0] {
            b'+' => Some(minutes),
            b'-' => Some(-minutes),
            _ => None,
        }
    }
}

fn digits_value(d: &[u8]) -> u32 {
    d.iter().fold(0, |acc, c| acc * 10 + u32::from(c - b'0'))
}

fn days_in_month(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::Timestamp;

    fn ts(s: &str) -> Option<String> {
        Timestamp::parse(s).map(Timestamp::to_rfc3339)
    }

    // Expectations are what `kubectl kustomize` (v5.5.0) printed for the unquoted value.
    #[test]
    fn layouts_kustomize_accepts() {
        assert_eq!(ts("2024-01-01").as_deref(), Some("2024-01-01T00:00:00Z"));
        assert_eq!(ts("2024-1-1").as_deref(), Some("2024-01-01T00:00:00Z"));
        assert_eq!(ts("2024-2-29").as_deref(), Some("2024-02-29T00:00:00Z"));
        assert_eq!(ts("0000-01-01").as_deref(), Some("0000-01-01T00:00:00Z"));
        assert_eq!(
            ts("2024-01-01 10:00:00").as_deref(),
            Some("2024-01-01T10:00:00Z")
        );
        assert_eq!(
            ts("2024-01-01   10:00:00").as_deref(),
            Some("2024-01-01T10:00:00Z")
        );
        assert_eq!(
            ts("2024-01-01 1:2:3.5").as_deref(),
            Some("2024-01-01T01:02:03.5Z")
        );
        assert_eq!(
            ts("2024-01-01T10:00:00Z").as_deref(),
            Some("2024-01-01T10:00:00Z")
        );
        assert_eq!(
            ts("2024-01-01T10:00:00.123456789123Z").as_deref(),
            Some("2024-01-01T10:00:00.123456789Z")
        );
        assert_eq!(
            ts("2024-01-01t10:00:00.5+02:00").as_deref(),
            Some("2024-01-01T10:00:00.5+02:00")
        );
        assert_eq!(
            ts("2024-01-01T10:00:00+00:00").as_deref(),
            Some("2024-01-01T10:00:00Z")
        );
        assert_eq!(
            ts("2024-01-01T10:00:00-05:30").as_deref(),
            Some("2024-01-01T10:00:00-05:30")
        );
        assert_eq!(
            ts("2024-01-01T10:00:00,5Z").as_deref(),
            Some("2024-01-01T10:00:00.5Z")
        );
    }

    #[test]
    fn values_kustomize_keeps_as_strings() {
        for s in [
            "2023-2-29",
            "2024-13-01",
            "2024-01-01T24:00:00Z",
            "2024-01-01 10:00:60",
            "2024-01-01 10:00",
            "2024-01-01T10:00:00",
            "2024-01-01T10:00:00+0200",
            "2001-12-14 21:59:43.10 -5",
            "20240-01-01",
            "2024-001-01",
            "2024-01-01x",
            "2024-",
            "12:30",
        ] {
            assert_eq!(ts(s), None, "{s}");
        }
    }
}
