//! QR scanning: frames rendered from the `qrcode` crate the way a camera
//! would deliver them (padded rows, turned, mirrored, small, dim, noisy)
//! decode back to the ticket; bad frames and foreign codes give clear
//! answers; image files decode on desktops.

use std::str::FromStr;
use std::sync::{Arc, Mutex};

use clovece::platform::camera::TicketScanner;
use clovece::platform::qr::{FrameError, GreyFrame, MAX_PIXELS, Scan, scan_file};
use proptest::prelude::*;
use qrcode::{Color, QrCode};

/// A stand-in for the network layer's join ticket: `CLOVECE:` and base32.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ticket(String);

impl FromStr for Ticket {
    type Err = String;

    fn from_str(s: &str) -> Result<Ticket, String> {
        match s.strip_prefix("CLOVECE:") {
            Some(body)
                if !body.is_empty()
                    && body
                        .bytes()
                        .all(|b| b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains(&b)) =>
            {
                Ok(Ticket(s.to_owned()))
            }
            _ => Err("not a clovece ticket".to_owned()),
        }
    }
}

const LINK: &str = "CLOVECE:AEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQ4AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYIBAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBA";

/// How a camera sees a code.
#[derive(Clone, Copy)]
struct View {
    /// Pixels per module.
    scale: usize,
    /// Where the code's top-left corner is in the frame.
    left: usize,
    top: usize,
    /// Quarter turns clockwise.
    turns: u8,
    mirrored: bool,
    /// Luminance of dark and light modules.
    dark: u8,
    light: u8,
}

impl Default for View {
    fn default() -> View {
        View {
            scale: 4,
            left: 40,
            top: 30,
            turns: 0,
            mirrored: false,
            dark: 20,
            light: 230,
        }
    }
}

/// A `width`×`height` frame with rows `stride` bytes apart (padding bytes
/// set to 77) showing `text` as a QR code seen as `view` says.
fn frame(text: &str, width: usize, height: usize, stride: usize, view: View) -> Vec<u8> {
    let code = QrCode::new(text.as_bytes()).unwrap();
    let modules = code.width();
    let colors = code.to_colors();
    let mut data = vec![77; stride * height];
    for y in 0..height {
        for x in 0..width {
            data[y * stride + x] = view.light;
        }
    }
    let side = modules * view.scale;
    for py in 0..side {
        for px in 0..side {
            let (mut mx, mut my) = (px / view.scale, py / view.scale);
            if view.mirrored {
                mx = modules - 1 - mx;
            }
            for _ in 0..view.turns {
                (mx, my) = (my, modules - 1 - mx);
            }
            let (x, y) = (view.left + px, view.top + py);
            if colors[my * modules + mx] == Color::Dark && x < width && y < height {
                data[y * stride + x] = view.dark;
            }
        }
    }
    data
}

fn scan(data: &[u8], width: usize, height: usize, stride: usize) -> Scan<Ticket> {
    GreyFrame::new(data, width, height, stride).unwrap().scan()
}

#[test]
fn qr_camera_frame_decodes_to_the_ticket() {
    let data = frame(LINK, 640, 480, 640, View::default());
    assert_eq!(scan(&data, 640, 480, 640), Scan::Found(Ticket(LINK.into())));
}

#[test]
fn qr_padded_camera_rows_decode() {
    // Camera planes often have rows longer than the picture (stride).
    let data = frame(LINK, 500, 400, 512, View::default());
    assert_eq!(scan(&data, 500, 400, 512), Scan::Found(Ticket(LINK.into())));
}

#[test]
fn qr_turned_and_mirrored_codes_decode() {
    for turns in 0..4 {
        for mirrored in [false, true] {
            let view = View {
                turns,
                mirrored,
                ..View::default()
            };
            let data = frame(LINK, 640, 480, 640, view);
            assert_eq!(
                scan(&data, 640, 480, 640),
                Scan::Found(Ticket(LINK.into())),
                "{turns} turns, mirrored {mirrored}"
            );
        }
    }
}

#[test]
fn qr_dim_low_contrast_frame_decodes() {
    let view = View {
        dark: 60,
        light: 110,
        ..View::default()
    };
    let data = frame(LINK, 640, 480, 640, view);
    assert_eq!(scan(&data, 640, 480, 640), Scan::Found(Ticket(LINK.into())));
}

#[test]
fn qr_empty_frame_finds_nothing() {
    let data = vec![200; 320 * 240];
    assert_eq!(scan(&data, 320, 240, 320), Scan::Nothing);
}

/// Scans the picture on which the decoder (rqrr) asserts, found by the
/// `scan_frame` fuzzer (its input: the width, then the pixels).
fn scan_tripping_picture() -> Scan<Ticket> {
    let data = include_bytes!("data/qr-rqrr-assert.bin");
    let (&width, pixels) = data.split_first().unwrap();
    let width = usize::from(width);
    scan(pixels, width, pixels.len() / width, width)
}

/// The picture on which the decoder asserts shows nothing, and the
/// scanner reads the next frame as ever.
#[test]
fn qr_picture_that_trips_the_decoder_finds_nothing() {
    assert_eq!(scan_tripping_picture(), Scan::Nothing);
    let data = frame(LINK, 320, 240, 320, View::default());
    assert_eq!(scan(&data, 320, 240, 320), Scan::Found(Ticket(LINK.into())));
}

/// The same picture prints nothing on standard error: rqrr's caught
/// assertion is no crash for a player to see in a terminal. Run in a child
/// process of this test binary, whose standard error is not captured.
#[test]
fn qr_picture_that_trips_the_decoder_prints_nothing() {
    const CHILD: &str = "CLOVECE_QR_QUIET_CHILD";
    if std::env::var_os(CHILD).is_some() {
        assert_eq!(scan_tripping_picture(), Scan::Nothing);
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "qr_picture_that_trips_the_decoder_prints_nothing",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}

#[test]
fn qr_code_cut_off_by_the_frame_edge_finds_nothing() {
    let view = View {
        left: 250,
        ..View::default()
    };
    let data = frame(LINK, 320, 240, 320, view);
    assert_eq!(scan(&data, 320, 240, 320), Scan::Nothing);
}

#[test]
fn qr_foreign_code_says_it_is_not_a_ticket() {
    let url = "https://example.org/menu";
    let data = frame(url, 640, 480, 640, View::default());
    assert_eq!(scan(&data, 640, 480, 640), Scan::Other { text: url.into() });
}

#[test]
fn qr_ticket_is_found_beside_a_foreign_code() {
    let mut data = frame("https://example.org", 900, 480, 900, View::default());
    let ticket = frame(
        LINK,
        900,
        480,
        900,
        View {
            left: 450,
            ..View::default()
        },
    );
    for (px, t) in data.iter_mut().zip(&ticket) {
        *px = (*px).min(*t);
    }
    assert_eq!(scan(&data, 900, 480, 900), Scan::Found(Ticket(LINK.into())));
}

#[test]
fn qr_frame_errors_are_clear() {
    let data = vec![0; 100];
    let err = |w, h, s| GreyFrame::new(&data, w, h, s).unwrap_err();
    assert!(matches!(err(0, 10, 10), FrameError::Empty { .. }));
    assert!(matches!(err(10, 0, 10), FrameError::Empty { .. }));
    assert!(matches!(err(10, 10, 9), FrameError::Stride { .. }));
    assert!(matches!(
        err(10, 11, 10),
        FrameError::Short {
            needed: 110,
            len: 100,
            ..
        }
    ));
    assert!(matches!(
        err(MAX_PIXELS, 2, MAX_PIXELS),
        FrameError::TooLarge { .. }
    ));
    assert!(matches!(err(2, usize::MAX, 2), FrameError::TooLarge { .. }));
    assert!(matches!(
        err(1, 2, usize::MAX),
        FrameError::Short {
            needed: usize::MAX,
            ..
        }
    ));
    assert_eq!(
        err(10, 11, 10).to_string(),
        "a 10×11 picture with rows 10 bytes apart needs 110 bytes, not 100"
    );
    // The last row needs no padding.
    assert!(GreyFrame::new(&data, 10, 10, 10).is_ok());
    assert!(GreyFrame::new(&data, 4, 9, 12).is_ok());
}

#[test]
fn qr_scanner_reports_each_change_once() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let sink =
        TicketScanner::<Ticket, _>::new(move |scan| log.lock().unwrap().push(scan)).into_sink();
    let code = frame(
        LINK,
        320,
        240,
        320,
        View {
            left: 10,
            top: 10,
            scale: 3,
            ..View::default()
        },
    );
    let blank = vec![200; 320 * 240];
    for data in [&blank, &code, &code, &code, &blank, &code] {
        sink(GreyFrame::new(data, 320, 240, 320).unwrap());
    }
    let found = Scan::Found(Ticket(LINK.into()));
    assert_eq!(*seen.lock().unwrap(), [found.clone(), Scan::Nothing, found]);
}

#[test]
fn qr_image_file_decodes_on_desktop() {
    let dir = std::env::temp_dir().join(format!("clovece-qr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (w, h) = (300, 260);
    let data = frame(
        LINK,
        w,
        h,
        w,
        View {
            left: 20,
            top: 20,
            ..View::default()
        },
    );
    let grey = image::GrayImage::from_raw(w as u32, h as u32, data).unwrap();
    let png = dir.join("ticket.png");
    grey.save(&png).unwrap();
    assert_eq!(
        scan_file::<Ticket>(&png).unwrap(),
        Scan::Found(Ticket(LINK.into()))
    );
    let jpeg = dir.join("ticket.jpg");
    image::DynamicImage::ImageLuma8(grey)
        .to_rgb8()
        .save(&jpeg)
        .unwrap();
    assert_eq!(
        scan_file::<Ticket>(&jpeg).unwrap(),
        Scan::Found(Ticket(LINK.into()))
    );

    let text = dir.join("notes.png");
    std::fs::write(&text, "not a picture").unwrap();
    let err = scan_file::<Ticket>(&text).unwrap_err().to_string();
    assert!(err.starts_with("cannot read the picture"), "{err}");
    let missing = scan_file::<Ticket>(&dir.join("missing.png"))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("missing.png"), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any placement, size and turn of a code that fits the frame decodes.
    #[test]
    fn qr_any_placement_decodes(
        scale in 2usize..5,
        left in 4usize..60,
        top in 4usize..60,
        turns in 0u8..4,
        mirrored: bool,
        pad in 0usize..24,
    ) {
        let (w, h) = (400, 380);
        let view = View { scale, left, top, turns, mirrored, ..View::default() };
        let data = frame(LINK, w, h, w + pad, view);
        prop_assert_eq!(scan(&data, w, h, w + pad), Scan::Found(Ticket(LINK.into())));
    }

    /// Random bytes never panic the decoder.
    #[test]
    fn qr_noise_never_panics(seed in proptest::collection::vec(any::<u8>(), 64 * 48)) {
        let _ = scan(&seed, 64, 48, 64);
    }
}
