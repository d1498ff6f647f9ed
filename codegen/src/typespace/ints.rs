//! Integer widths: from `format`, else from the bounds `minimum`/`maximum` allow.

use serde_json::Value;

use super::model::Int;

/// The integer width from `format`, else from `minimum`/`maximum`.
pub(super) fn int_width(s: &Value) -> Int {
    let format = s.get("format").and_then(Value::as_str).unwrap_or_default();
    match format {
        "int8" => return Int::I8,
        "int16" => return Int::I16,
        "int32" => return Int::I32,
        "int64" => return Int::I64,
        "int128" => return Int::I128,
        "uint8" => return Int::U8,
        "uint16" => return Int::U16,
        "uint32" => return Int::U32,
        "uint64" | "uint" => return Int::U64,
        "uint128" => return Int::U128,
        _ => {}
    }
    let bound = |k: &str, ex: &str| s.get(k).or_else(|| s.get(ex)).and_then(Value::as_f64);
    let min = bound("minimum", "exclusiveMinimum");
    let max = bound("maximum", "exclusiveMaximum");
    width_from_bounds(min, max)
}

fn width_from_bounds(min: Option<f64>, max: Option<f64>) -> Int {
    match (min, max) {
        (Some(lo), Some(hi)) if lo >= 0.0 => {
            if hi <= f64::from(u8::MAX) {
                Int::U8
            } else if hi <= f64::from(u16::MAX) {
                Int::U16
            } else if hi <= f64::from(u32::MAX) {
                Int::U32
            } else {
                Int::U64
            }
        }
        (Some(lo), _) if lo >= 0.0 => Int::U64,
        (Some(lo), Some(hi)) if lo >= f64::from(i32::MIN) && hi <= f64::from(i32::MAX) => {
            if lo >= f64::from(i8::MIN) && hi <= f64::from(i8::MAX) {
                Int::I8
            } else if lo >= f64::from(i16::MIN) && hi <= f64::from(i16::MAX) {
                Int::I16
            } else {
                Int::I32
            }
        }
        _ => Int::I64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_from_bounds() {
        assert_eq!(width_from_bounds(Some(0.0), Some(255.0)), Int::U8);
        assert_eq!(width_from_bounds(Some(0.0), Some(70000.0)), Int::U32);
        assert_eq!(width_from_bounds(Some(1.0), None), Int::U64);
        assert_eq!(width_from_bounds(Some(-5.0), Some(5.0)), Int::I8);
        assert_eq!(width_from_bounds(None, Some(5.0)), Int::I64);
    }
}
