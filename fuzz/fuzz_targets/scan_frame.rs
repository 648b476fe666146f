//! Feeds arbitrary pictures to the QR scanner, as a camera or a picture
//! file of anything may show it: the first byte is the frame's width, the
//! rest its grey pixels, row after row. No panic may leave the scanner.

#![no_main]

use clovece::net::Ticket;
use clovece::platform::qr::{GreyFrame, Scan};
use libfuzzer_sys::fuzz_target;

// libfuzzer-sys's panic hook ends the run at any panic, even a caught one;
// the scanner's own hook keeps rqrr's asserts (WanzenBug/rqrr#54), which it
// catches, from reaching it, so every other panic still ends the run.
fuzz_target!(|data: &[u8]| {
    let Some((&width, pixels)) = data.split_first() else {
        return;
    };
    let width = usize::from(width.max(1));
    let height = pixels.len() / width;
    if let Ok(frame) = GreyFrame::new(pixels, width, height, width) {
        let _: Scan<Ticket> = frame.scan();
    }
});
