//! How long the scan screen's camera picture takes a frame (figures in
//! docs/performance.md): a 1280×720 luma frame turned a quarter upright
//! (a phone's back camera held in portrait), mirrored or not, scaled down
//! to the preview side.

use std::hint::black_box;

use clovece::platform::preview::{Orientation, PREVIEW_SIDE, Rotation, preview};
use clovece::platform::qr::GreyFrame;
use criterion::{Criterion, criterion_group, criterion_main};

const WIDTH: usize = 1280;
const HEIGHT: usize = 720;

fn turn(c: &mut Criterion) {
    let pixels: Vec<u8> = (0..WIDTH * HEIGHT).map(|i| (i * 7 % 251) as u8).collect();
    let mut group = c.benchmark_group("preview");
    for (name, orientation) in [
        ("1280x720 upright", Orientation::UPRIGHT),
        (
            "1280x720 quarter turn",
            Orientation {
                rotation: Rotation::Quarter,
                mirrored: false,
            },
        ),
        (
            "1280x720 three quarters mirrored",
            Orientation {
                rotation: Rotation::ThreeQuarters,
                mirrored: true,
            },
        ),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let frame = GreyFrame::new(black_box(&pixels), WIDTH, HEIGHT, WIDTH)
                    .unwrap()
                    .oriented(orientation);
                preview(&frame, PREVIEW_SIDE)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, turn);
criterion_main!(benches);
