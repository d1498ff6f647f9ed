//! Token buckets by key, in a table bounded in size.
//!
//! Each bucket is kept as one instant, its *theoretical arrival time* (the generic cell
//! rate algorithm, GCRA): the moment the bucket would be full again were no call taken
//! before then. A bucket full at `now` (its instant not after `now`) holds nothing a new
//! bucket would not, so it can be dropped without changing any decision: that is how the
//! table forgets keys that went quiet. When the table is at its size and a new key
//! comes, full buckets are dropped first; if that is not enough (more keys than the
//! table holds all took calls lately), the eighth of buckets nearest to full are dropped
//! (their keys start again with a full bucket). So a peer with many addresses cannot
//! grow the table past its size, and the work of making room is paid once per eighth of
//! the table, not once per new key.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::Rate;

/// Buckets of one [`Rate`], one per key, at most `max_keys` of them.
pub(super) struct Buckets<K> {
    rate: Rate,
    max_keys: usize,
    /// Each key's theoretical arrival time.
    full_at: Mutex<HashMap<K, Instant>>,
}

impl<K: Hash + Eq + Copy> Buckets<K> {
    pub(super) fn new(rate: Rate, max_keys: usize) -> Self {
        Buckets {
            rate,
            max_keys: max_keys.max(1),
            full_at: Mutex::new(HashMap::new()),
        }
    }

    pub(super) fn rate(&self) -> Rate {
        self.rate
    }

    pub(super) fn set_max_keys(&mut self, max_keys: usize) {
        self.max_keys = max_keys.max(1);
    }

    /// Takes a token from `key`'s bucket at `now`; when it is empty, how long until it
    /// holds one again.
    pub(super) fn take(&self, key: K, now: Instant) -> Result<(), Duration> {
        let interval = self.rate.interval();
        let window = self.rate.window();
        let mut table = self.full_at.lock().unwrap_or_else(PoisonError::into_inner);
        let full_at = table.get(&key).map_or(now, |&full_at| full_at.max(now));
        // Far beyond any real instant: refuse rather than overflow.
        let Some(after) = full_at.checked_add(interval) else {
            return Err(window);
        };
        let ahead = after - now;
        if ahead > window {
            return Err(ahead - window);
        }
        if !table.contains_key(&key) && table.len() >= self.max_keys {
            make_room(&mut table, now, self.max_keys);
        }
        table.insert(key, after);
        Ok(())
    }

    /// Gives back the token [`take`](Self::take) took from `key`'s bucket (another
    /// limit refused the call after all).
    pub(super) fn give_back(&self, key: K) {
        let mut table = self.full_at.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(full_at) = table.get_mut(&key) {
            *full_at = full_at
                .checked_sub(self.rate.interval())
                .unwrap_or(*full_at);
        }
    }

    /// How many keys the table holds now.
    pub(super) fn len(&self) -> usize {
        self.full_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// Drops the buckets full at `now`; if that leaves `max_keys` or more, the eighth
/// nearest to full (at least one).
fn make_room<K>(table: &mut HashMap<K, Instant>, now: Instant, max_keys: usize) {
    table.retain(|_, full_at| *full_at > now);
    let len = table.len();
    if len < max_keys {
        return;
    }
    let mut instants: Vec<Instant> = table.values().copied().collect();
    let nth = len / 8;
    let (_, &mut threshold, _) = instants.select_nth_unstable(nth);
    table.retain(|_, full_at| *full_at > threshold);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(capacity: u32, per_token_ms: u64) -> Rate {
        Rate::new(1, Duration::from_millis(per_token_ms)).capacity(capacity)
    }

    #[test]
    fn a_bucket_empties_then_refills_at_its_rate() {
        let buckets = Buckets::new(rate(3, 100), 10);
        let start = Instant::now();
        for _ in 0..3 {
            assert_eq!(buckets.take("a", start), Ok(()));
        }
        assert_eq!(buckets.take("a", start), Err(Duration::from_millis(100)));
        // Another key has a bucket of its own.
        assert_eq!(buckets.take("b", start), Ok(()));
        let later = start + Duration::from_millis(40);
        assert_eq!(buckets.take("a", later), Err(Duration::from_millis(60)));
        let refilled = start + Duration::from_millis(100);
        assert_eq!(buckets.take("a", refilled), Ok(()));
        assert_eq!(buckets.take("a", refilled), Err(Duration::from_millis(100)));
    }

    #[test]
    fn a_token_given_back_is_taken_again() {
        let buckets = Buckets::new(rate(1, 1000), 10);
        let now = Instant::now();
        assert_eq!(buckets.take(1, now), Ok(()));
        assert!(buckets.take(1, now).is_err());
        buckets.give_back(1);
        assert_eq!(buckets.take(1, now), Ok(()));
    }

    #[test]
    fn the_table_never_holds_more_than_its_size() {
        let buckets = Buckets::new(rate(2, 1000), 64);
        let now = Instant::now();
        for key in 0..10_000_u32 {
            assert_eq!(buckets.take(key, now), Ok(()), "key {key}");
            assert!(
                buckets.len() <= 64,
                "{} keys after key {key}",
                buckets.len()
            );
        }
        // The newest keys are still counted.
        assert_eq!(buckets.take(9_999, now), Ok(()));
        assert!(buckets.take(9_999, now).is_err());
    }

    #[test]
    fn full_buckets_make_room_first() {
        let buckets = Buckets::new(rate(2, 100), 4);
        let start = Instant::now();
        // One busy key, empty at `later`; three that took one token long before.
        for key in 1..=3 {
            assert_eq!(buckets.take(key, start), Ok(()));
        }
        let later = start + Duration::from_secs(10);
        assert_eq!(buckets.take(0, later), Ok(()));
        assert_eq!(buckets.take(0, later), Ok(()));
        // A fifth key: the three full buckets go, the busy one stays empty.
        assert_eq!(buckets.take(4, later), Ok(()));
        assert_eq!(buckets.len(), 2);
        assert!(buckets.take(0, later).is_err());
    }
}
