//! The log's window, budget, readers and stalls, by the cases that bound them.

use super::*;

fn waker() -> Waker {
    Waker::noop().clone()
}

/// A log of `events` and `bytes` at most, under no shared budget.
fn windowed(events: usize, bytes: usize) -> Log {
    Log::new(Window { events, bytes }, Budget::new(usize::MAX))
}

fn read(log: &mut Log, stream: u64, generation: u64) -> Vec<String> {
    let mut ids = Vec::new();
    while let Next::Event { id, .. } = log.next(stream, generation, &waker()) {
        ids.push(id);
    }
    ids
}

#[test]
fn a_post_stream_ends_with_its_response_and_resumes_from_an_id() {
    let mut log = windowed(16, 1 << 20);
    let (stream, first) = log.open_post();
    log.append(stream, Bytes::from_static(b"a"), false)
        .expect("fits");
    log.append(STANDALONE, Bytes::from_static(b"x"), false)
        .expect("fits");
    log.append(stream, Bytes::from_static(b"b"), false)
        .expect("fits");
    assert_eq!(read(&mut log, stream, first), ["1-1", "1-3"]);
    log.append(stream, Bytes::from_static(b"answer"), true)
        .expect("fits");
    // No takeover while the first reader reads; once it is gone, resumed after
    // the first event: the rest again, then the end.
    assert_eq!(
        log.attach_get(Some((stream, 1))).unwrap_err(),
        Refused::Busy
    );
    log.detach(stream, first);
    let (_, second) = log.attach_get(Some((stream, 1))).expect("held");
    assert_eq!(read(&mut log, stream, second), ["1-3", "1-4"]);
    assert!(matches!(log.next(stream, second, &waker()), Next::End));
    // A fresh GET reads the standalone stream's event nobody read.
    let (standalone, get) = log.attach_get(None).expect("none open");
    assert_eq!(read(&mut log, standalone, get), ["0-2"]);
    assert_eq!(log.attach_get(None).unwrap_err(), Refused::Busy);
}

#[test]
fn the_window_is_bounded_and_a_resumption_past_it_is_refused() {
    let mut log = windowed(4, 10);
    for _ in 0..100 {
        log.append(STANDALONE, Bytes::from_static(b"abc"), false)
            .expect("fits");
    }
    assert!(log.bytes() <= 10, "{}", log.bytes());
    assert_eq!(
        log.attach_get(Some((STANDALONE, 1))).unwrap_err(),
        Refused::Gone
    );
    let (_, generation) = log.attach_get(Some((STANDALONE, 97))).expect("held");
    assert_eq!(
        read(&mut log, STANDALONE, generation),
        ["0-98", "0-99", "0-100"]
    );
    assert_eq!(log.attach_get(Some((7, 0))).unwrap_err(), Refused::Unknown);
    assert_eq!(
        log.attach_get(Some((STANDALONE, 999_999))).unwrap_err(),
        Refused::Unknown,
        "an id not reached yet"
    );
}

#[test]
fn a_reader_that_lags_past_the_window_ends() {
    let mut log = windowed(2, 1 << 20);
    let (stream, generation) = log.open_post();
    log.append(stream, Bytes::from_static(b"1"), false)
        .expect("fits");
    log.append(stream, Bytes::from_static(b"2"), false)
        .expect("fits");
    assert!(log.must_wait(1), "the oldest is owed to the reader");
    log.append(stream, Bytes::from_static(b"3"), false)
        .expect("fits");
    assert!(matches!(log.next(stream, generation, &waker()), Next::End));
    assert!(!log.must_wait(1), "nobody keeps up any more");
}

/// The connection of a `GET` the window left behind is closed at once: a fresh `GET`
/// may take the stream over before the stream's watch looks again, and the watch then
/// finds its reader gone (the case of a release build, where the bulk of pushes ends
/// within one stall time).
#[test]
fn a_watched_reader_left_behind_closes_its_connection_once_even_if_taken_over() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut log = windowed(2, 1 << 20);
    let (stream, stalled) = log.attach_get(None).expect("the first GET");
    let closed = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&closed);
    log.close_on_lag(
        stream,
        stalled,
        Arc::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        }),
    );
    for item in [&b"1"[..], b"2"] {
        log.append(stream, Bytes::from_static(item), false)
            .expect("fits");
    }
    assert_eq!(closed.load(Ordering::SeqCst), 0, "it may still read them");
    log.append(stream, Bytes::from_static(b"3"), false)
        .expect("fits");
    assert_eq!(closed.load(Ordering::SeqCst), 1, "closed when left behind");
    let (_, fresh) = log.attach_get(None).expect("a lagged reader is over");
    assert_ne!(fresh, stalled);
    assert_eq!(
        log.stall(stream, stalled, std::time::Duration::ZERO),
        Stall::Gone,
        "the watch finds it taken over"
    );
    log.append(stream, Bytes::from_static(b"4"), false)
        .expect("fits");
    assert_eq!(
        closed.load(Ordering::SeqCst),
        1,
        "the fresh reader's is not"
    );
}

#[test]
fn every_log_together_holds_at_most_the_budget() {
    let budget = Budget::new(10);
    let window = Window {
        events: 100,
        bytes: 1 << 20,
    };
    let mut first = Log::new(window, Arc::clone(&budget));
    let mut second = Log::new(window, Arc::clone(&budget));
    for _ in 0..3 {
        first
            .append(STANDALONE, Bytes::from_static(b"abc"), false)
            .expect("fits");
    }
    assert_eq!(budget.used(), 9);
    // The second log holds nothing to drop: what does not fit is refused.
    assert_eq!(
        second.append(STANDALONE, Bytes::from_static(b"abcd"), false),
        Err(OverBudget)
    );
    // The first drops its own oldest to make room.
    first
        .append(STANDALONE, Bytes::from_static(b"abcd"), false)
        .expect("fits");
    assert_eq!((budget.used(), first.bytes()), (10, 10));
    second
        .append(STANDALONE, Bytes::from_static(b"a"), false)
        .unwrap_err();
    first.end();
    assert_eq!(budget.used(), 0);
    second
        .append(STANDALONE, Bytes::from_static(b"abcd"), false)
        .expect("fits");
    drop(second);
    assert_eq!(budget.used(), 0, "a log gives its bytes back when dropped");
}

#[test]
fn a_full_budget_trims_other_sessions_read_events_before_ending_a_stream() {
    let budget = Budget::new(10);
    let window = Window {
        events: 100,
        bytes: 1 << 20,
    };
    let log = || {
        let log = Arc::new(std::sync::Mutex::new(Log::new(window, Arc::clone(&budget))));
        let weak: std::sync::Weak<std::sync::Mutex<Log>> = Arc::downgrade(&log);
        budget.register(weak);
        log
    };
    let (idle, busy, live) = (log(), log(), log());
    // An idle session's standalone events, with no reader waiting: only replay.
    for _ in 0..2 {
        (idle.lock().unwrap())
            .append(STANDALONE, Bytes::from_static(b"ab"), false)
            .expect("fits");
    }
    // A session whose POST stream's reader has not read its event yet.
    let (stream, _) = busy.lock().unwrap().open_post();
    (busy.lock().unwrap())
        .append(stream, Bytes::from_static(b"abcd"), false)
        .expect("fits");
    assert_eq!(budget.used(), 8);
    // A live stream's 5 bytes: the idle session's two events go, oldest first, not
    // the unread one.
    let (live_stream, generation) = live.lock().unwrap().open_post();
    (live.lock().unwrap())
        .append(live_stream, Bytes::from_static(b"abcde"), false)
        .expect("room made in the idle session");
    assert_eq!(idle.lock().unwrap().bytes(), 0);
    assert_eq!(busy.lock().unwrap().bytes(), 4);
    assert_eq!(budget.used(), 9);
    let mut reading = live.lock().unwrap();
    let expected = [format!("{live_stream}-1")];
    assert_eq!(read(&mut reading, live_stream, generation), expected);
    drop(reading);
    // Read now, the live event goes in its turn for another session's.
    let other = log();
    let (stream, _) = other.lock().unwrap().open_post();
    (other.lock().unwrap())
        .append(stream, Bytes::from_static(b"abcdef"), false)
        .expect("room made in the live session");
    assert_eq!(live.lock().unwrap().bytes(), 0);
    // Nothing read is left anywhere: what does not fit ends its stream.
    let last = log();
    let (stream, _) = last.lock().unwrap().open_post();
    assert_eq!(
        (last.lock().unwrap()).append(stream, Bytes::from_static(b"a"), false),
        Err(OverBudget)
    );
    assert_eq!(
        busy.lock().unwrap().bytes(),
        4,
        "unread events are never trimmed for another"
    );
    assert_eq!(other.lock().unwrap().bytes(), 6);
}
