//! Glob matching for `--process` / `--layer` (`*` any run, `?` one character), as SQLite's
//! GLOB without character classes.

pub fn glob(pattern: &str, text: &str) -> bool {
    // Without `?` every pattern character matches whole characters only, so comparing
    // UTF-8 bytes gives the same answer without collecting characters.
    if !pattern.contains('?') {
        return matches(pattern.as_bytes(), text.as_bytes());
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    matches(&p, &t)
}

/// `*` matches any run, `?` one item, anything else itself.
fn matches<T: Copy + PartialEq + Wildcards>(p: &[T], t: &[T]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == T::ONE || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == T::ANY {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == T::ANY)
}

trait Wildcards: Sized {
    const ANY: Self;
    const ONE: Self;
}

impl Wildcards for char {
    const ANY: char = '*';
    const ONE: char = '?';
}

impl Wildcards for u8 {
    const ANY: u8 = b'*';
    // Never reached: byte matching is only used for patterns without `?`.
    const ONE: u8 = b'?';
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("com.example.*", "com.example.app"));
        assert!(glob("*app*", "com.example.app:remote"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("a?c", "abbc"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
        assert!(glob("*", ""));
        assert!(glob("*é*", "café au lait"));
        assert!(glob("caf?", "café"));
        assert!(!glob("caf??", "café"));
    }
}
