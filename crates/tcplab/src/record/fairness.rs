//! Jain's fairness index (Jain, Chiu, Hawe 1984): (sum x)^2 / (n * sum x^2).

/// 1 when all values are equal, 1/n when one value takes everything; 1 for no values or all zero.
pub fn jain_index(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if n == 0.0 || sq == 0.0 {
        1.0
    } else {
        sum * sum / (n * sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes() {
        assert_eq!(jain_index(&[3.0, 3.0, 3.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain_index(&[1.0, 2.0]) - 0.9).abs() < 1e-12);
    }
}
