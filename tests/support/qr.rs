//! A QR code as a screen shows it and a camera reads it.

use qrcode::{Color, QrCode};

/// Pixels per module and the quiet zone around the code, in modules.
const SCALE: usize = 4;
const QUIET: usize = 4;

/// The code as a square greyscale image (0 black, 255 white): its side and
/// pixels.
pub fn render(qr: &QrCode) -> (usize, Vec<u8>) {
    let modules = qr.width();
    let colors = qr.to_colors();
    let side = (modules + 2 * QUIET) * SCALE;
    let mut pixels = vec![255u8; side * side];
    for y in 0..side {
        for x in 0..side {
            let (mx, my) = (x / SCALE, y / SCALE);
            let inside =
                (QUIET..QUIET + modules).contains(&mx) && (QUIET..QUIET + modules).contains(&my);
            if inside && colors[(my - QUIET) * modules + (mx - QUIET)] == Color::Dark {
                pixels[y * side + x] = 0;
            }
        }
    }
    (side, pixels)
}

/// The text of the one QR code in the image.
pub fn scan(side: usize, pixels: &[u8]) -> String {
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(side, side, |x, y| pixels[y * side + x]);
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code in the image");
    grids[0].decode().expect("the QR code decodes").1
}
