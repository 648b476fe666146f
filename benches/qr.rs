//! How long the QR decoder takes for one camera frame (figures in
//! docs/performance.md): a 640×480 frame as the Android camera delivers it,
//! with and without a ticket's code in view.

use std::hint::black_box;

use clovece::platform::qr::GreyFrame;
use criterion::{Criterion, criterion_group, criterion_main};
use qrcode::{Color, QrCode};

const WIDTH: usize = 640;
const HEIGHT: usize = 480;

/// A ticket-sized link (as the network layer's tickets are, ~150 characters).
const LINK: &str = "CLOVECE:AEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQ4AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYIBAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBA";

/// The frame with the code 4 pixels a module, near the middle.
fn frame_with_code() -> Vec<u8> {
    let code = QrCode::new(LINK.as_bytes()).unwrap();
    let colors = code.to_colors();
    let n = code.width();
    let mut data = vec![220; WIDTH * HEIGHT];
    for y in 0..n * 4 {
        for x in 0..n * 4 {
            if colors[(y / 4) * n + x / 4] == Color::Dark {
                data[(100 + y) * WIDTH + 200 + x] = 30;
            }
        }
    }
    data
}

fn decode(c: &mut Criterion) {
    let code = frame_with_code();
    let empty: Vec<u8> = (0..WIDTH * HEIGHT).map(|i| (i * 7 % 251) as u8).collect();
    let mut group = c.benchmark_group("qr");
    group.bench_function("640x480 frame with a ticket", |b| {
        b.iter(|| {
            GreyFrame::new(black_box(&code), WIDTH, HEIGHT, WIDTH)
                .unwrap()
                .texts()
        })
    });
    group.bench_function("640x480 frame without a code", |b| {
        b.iter(|| {
            GreyFrame::new(black_box(&empty), WIDTH, HEIGHT, WIDTH)
                .unwrap()
                .texts()
        })
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
