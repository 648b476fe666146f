//! Feeds arbitrary pictures to the QR scanner, as a camera or a picture
//! file of anything may show it: the first byte is the frame's width, the
//! rest its grey pixels, row after row. No panic may leave the scanner.

#![no_main]

use std::sync::Once;

use clovece::net::Ticket;
use clovece::platform::qr::{GreyFrame, Scan};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // libfuzzer-sys's panic hook ends the run at any panic, even one the
    // scanner catches (rqrr's asserts, WanzenBug/rqrr#54): the default
    // hook instead, so that only a panic the app would not survive, one
    // that leaves this function, ends it.
    static DEFAULT_HOOK: Once = Once::new();
    DEFAULT_HOOK.call_once(|| drop(std::panic::take_hook()));
    let Some((&width, pixels)) = data.split_first() else {
        return;
    };
    let width = usize::from(width.max(1));
    let height = pixels.len() / width;
    if let Ok(frame) = GreyFrame::new(pixels, width, height, width) {
        let _: Scan<Ticket> = frame.scan();
    }
});
