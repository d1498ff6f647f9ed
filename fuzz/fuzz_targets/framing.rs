//! The byte-stream framing codecs: any bytes end in frames no larger than the limit and
//! then a clean end or an error, never a panic or a hang; every frame read, written
//! back, reads back the same. The first byte picks the codec and the size limit.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rpcsmith::transport::stream::{Codec, FrameReader, write_frame};

/// Every frame in `input`, until the end or an error the stream cannot recover from.
async fn frames(input: &[u8], codec: Codec, max: usize) -> Vec<Vec<u8>> {
    let mut reader = FrameReader::new(input, codec, max);
    let mut frames = Vec::new();
    loop {
        match reader.read().await {
            Ok(Some(frame)) => {
                assert!(frame.len() <= max, "a frame of {} over {max}", frame.len());
                frames.push(frame.to_vec());
            }
            Ok(None) => return frames,
            Err(e) if e.is_recoverable() => {}
            Err(_) => return frames,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let codec = if pick & 1 == 0 {
        Codec::Newline
    } else {
        Codec::ContentLength
    };
    let max = usize::from(pick >> 1);
    rpcsmith_fuzz::block_on(async {
        let read = frames(input, codec, max).await;
        let mut written = Vec::new();
        for frame in &read {
            write_frame(&mut written, codec, frame).await.unwrap();
        }
        // A line's raw `\r` is written as a space (JSON whitespace either way).
        let expected: Vec<Vec<u8>> = match codec {
            Codec::Newline => read
                .iter()
                .map(|f| {
                    f.iter()
                        .map(|&b| if b == b'\r' { b' ' } else { b })
                        .collect()
                })
                .collect(),
            _ => read,
        };
        assert_eq!(frames(&written, codec, max).await, expected);
    });
});
