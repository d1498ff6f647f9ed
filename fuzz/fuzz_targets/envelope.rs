//! The envelope readers: any bytes are a message (or one error to answer) for the
//! server's reader, and a response (or a decode error) for the client's, never a panic.
//! A request read back from its own serialization is the same request.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rpcsmith::protocol::{Entry, Message, Responses};

fuzz_target!(|data: &[u8]| {
    let _ = Responses::parse(data);
    let _ = Message::parse_limited(data, 4);
    let entries = match Message::parse(data) {
        Ok(Message::Single(entry)) => vec![entry],
        Ok(Message::Batch(entries)) => entries,
        Err(_) => return,
    };
    for entry in entries {
        let Entry::Request(request) = entry else {
            continue;
        };
        if let Some(params) = request.params {
            assert!(
                matches!(params.get().as_bytes()[0], b'[' | b'{'),
                "params {params}"
            );
        }
        let written = serde_json::to_vec(&request).expect("a request serializes");
        let Ok(Message::Single(Entry::Request(again))) = Message::parse(&written) else {
            panic!(
                "a written request reads back: {}",
                String::from_utf8_lossy(&written)
            );
        };
        assert_eq!(again.method, request.method);
        assert_eq!(again.id.as_json(), request.id.as_json());
        assert_eq!(
            again.params.map(|p| p.get()),
            request.params.map(|p| p.get())
        );
    }
});
