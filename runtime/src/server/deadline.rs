//! The caller's deadline, read from the call (see
//! [`protocol::deadline`](crate::protocol::deadline)): the params' `_meta` member, else
//! the HTTP header; the earlier of the two when both are there (a proxy's header beside
//! the `_meta` its front's caller wrote). A value that is not RFC 3339 is ignored, as
//! if absent: the server's own handler time limit still holds.

use std::time::SystemTime;

use serde_json::value::RawValue;
use tokio::time::Instant;

use super::metadata::Metadata;
use crate::protocol::{deadline, meta};

/// The instant, on tokio's clock, at which the call's caller stops waiting; `None` when
/// the call carries no deadline.
pub(super) fn of(metadata: Option<&Metadata>, params: Option<&RawValue>) -> Option<Instant> {
    let in_meta = params
        // Only an object has members: params by position (the first byte `[`) are not
        // searched.
        .filter(|params| params.get().starts_with('{') && params.get().contains(r#""_meta""#))
        .and_then(meta::read_meta)
        .and_then(|fields| {
            fields
                .get(deadline::META)
                .and_then(|text| deadline::parse(text))
        });
    let in_header = metadata.and_then(Metadata::header_deadline);
    let at = match (in_meta, in_header) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    // The wall clock's distance to it, laid on tokio's clock (paused in tests).
    let now = Instant::now();
    Some(match at.duration_since(SystemTime::now()) {
        Ok(left) => now.checked_add(left).unwrap_or(now + FAR),
        Err(_) => now,
    })
}

/// Further than any call waits: a deadline beyond tokio's range is as good as none.
const FAR: std::time::Duration = std::time::Duration::from_secs(86_400 * 365 * 30);

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn read_from_meta_or_header_the_earlier_winning() {
        let at = |secs| deadline::format(SystemTime::now() + Duration::from_secs(secs)).unwrap();
        let left = |deadline: Option<Instant>| deadline.map(|d| (d - Instant::now()).as_secs());
        let params = raw(&format!(r#"{{"_meta":{{"deadline":"{}"}},"a":1}}"#, at(60)));
        assert!(matches!(left(of(None, Some(&params))), Some(58..=60)));
        let header = Metadata::carrying_deadline(&at(30));
        assert!(matches!(left(of(Some(&header), None)), Some(28..=30)));
        assert!(matches!(
            left(of(Some(&header), Some(&params))),
            Some(28..=30)
        ));
        let later = Metadata::carrying_deadline(&at(90));
        assert!(matches!(
            left(of(Some(&later), Some(&params))),
            Some(58..=60)
        ));
        assert_eq!(of(None, Some(&raw(r#"{"a":1}"#))), None);
        assert_eq!(of(None, Some(&raw(r#"[{"_meta":1}]"#))), None);
        let garbage = raw(r#"{"_meta":{"deadline":"soon"}}"#);
        assert_eq!(
            of(Some(&Metadata::carrying_deadline("soon")), Some(&garbage)),
            None
        );
        let past = Metadata::carrying_deadline("2009-11-10T23:00:00Z");
        assert_eq!(of(Some(&past), None), Some(Instant::now()));
    }
}
