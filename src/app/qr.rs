//! The room's QR code as a picture for the room screen: every module a
//! square of whole pixels and a quiet zone of four modules around, so the
//! UI can show it scaled by whole numbers with `image-rendering:
//! pixelated` and a phone's camera reads it sharp.

use qrcode::{Color, QrCode};
use slint::{Rgba8Pixel, SharedPixelBuffer};

/// The light margin the QR standard asks for, in modules.
const QUIET: usize = 4;
/// Pixels per module: small, since the UI scales the picture by whole
/// numbers anyway.
pub const MODULE: usize = 4;

const DARK: Rgba8Pixel = Rgba8Pixel::new(0, 0, 0, 255);
const LIGHT: Rgba8Pixel = Rgba8Pixel::new(255, 255, 255, 255);

/// Why a text has no QR code.
#[derive(Debug, thiserror::Error)]
#[error("cannot make a QR code of the room's link: {0}")]
pub struct QrError(#[from] qrcode::types::QrError);

/// `text` as a QR code picture, [`MODULE`] pixels per module.
pub fn picture(text: &str) -> Result<SharedPixelBuffer<Rgba8Pixel>, QrError> {
    let code = QrCode::new(text.as_bytes())?;
    let modules = code.width();
    let colours = code.to_colors();
    let side = (modules + 2 * QUIET) * MODULE;
    let size = u32::try_from(side).expect("a QR code is at most 177 modules wide");
    let mut buffer = SharedPixelBuffer::<Rgba8Pixel>::new(size, size);
    let pixels = buffer.make_mut_slice();
    for (i, pixel) in pixels.iter_mut().enumerate() {
        let (x, y) = (i % side / MODULE, i / side / MODULE);
        let dark = (QUIET..QUIET + modules).contains(&x)
            && (QUIET..QUIET + modules).contains(&y)
            && colours[(y - QUIET) * modules + (x - QUIET)] == Color::Dark;
        *pixel = if dark { DARK } else { LIGHT };
    }
    Ok(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::qr::GreyFrame;

    const LINK: &str = "clovece://join/ABCDEF0123456789";

    #[test]
    fn the_qr_picture_reads_back_as_the_rooms_link() {
        let picture = picture(LINK).unwrap();
        let grey: Vec<u8> = picture.as_slice().iter().map(|p| p.r).collect();
        let side = picture.width() as usize;
        let frame = GreyFrame::new(&grey, side, picture.height() as usize, side).unwrap();
        assert_eq!(frame.texts(), [LINK]);
    }

    #[test]
    fn every_module_is_a_square_of_whole_pixels_with_a_quiet_zone() {
        let picture = picture(LINK).unwrap();
        let side = picture.width() as usize;
        assert_eq!(side % MODULE, 0);
        let px = picture.as_slice();
        // The quiet zone is light all round.
        for i in 0..QUIET * MODULE {
            assert!((0..side).all(|j| px[i * side + j] == LIGHT && px[j * side + i] == LIGHT));
        }
        // Each module's pixels are one colour: no smoothing.
        for y in 0..side / MODULE {
            for x in 0..side / MODULE {
                let first = px[y * MODULE * side + x * MODULE];
                for dy in 0..MODULE {
                    for dx in 0..MODULE {
                        assert_eq!(px[(y * MODULE + dy) * side + x * MODULE + dx], first);
                    }
                }
            }
        }
        // The top-left finder pattern starts with a dark module.
        let corner = QUIET * MODULE;
        assert_eq!(px[corner * side + corner], DARK);
    }
}
