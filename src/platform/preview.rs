//! The camera's picture on the scan screen, so that the player sees what
//! the camera sees while aiming at the host's QR code.
//!
//! Cameras deliver their sensor's picture, which on most phones is
//! sideways (the sensor is mounted in landscape) and, for a front camera,
//! the other way round from a mirror. The platforms report how
//! ([`Orientation`]: Android's `SENSOR_ORIENTATION` with the display's
//! rotation, iOS's `AVCaptureConnection.videoOrientation`); [`preview`]
//! turns, mirrors and scales the frame down in one pass into the RGB
//! buffer Slint shows. It runs on the camera's thread (a `slint::Image` is
//! not `Send`, its pixel buffer is), once a frame: so it reads each shown
//! pixel once, from offsets worked out per row and per column, and touches
//! no pixel that is not shown (docs/performance.md has its cost).
//!
//! The QR decoder needs none of this: it reads the frame as it comes,
//! turned or mirrored.

use slint::{Rgb8Pixel, SharedPixelBuffer};

use super::qr::GreyFrame;

/// The longest side of the preview, in pixels: sharp enough to aim with
/// on a phone's viewfinder (which scales it up), small enough to cost
/// little a frame.
pub const PREVIEW_SIDE: usize = 480;

/// How far clockwise a camera's picture must be turned to stand upright on
/// the screen: the quarter turns cameras report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rotation {
    #[default]
    None,
    Quarter,
    Half,
    ThreeQuarters,
}

impl Rotation {
    /// The rotation of `degrees` clockwise, any multiple of 90 (negative
    /// too, as platform formulas give before their `% 360`); `None` for an
    /// angle no camera reports.
    pub fn from_degrees(degrees: i32) -> Option<Rotation> {
        if degrees % 90 != 0 {
            return None;
        }
        Some(match degrees.rem_euclid(360) {
            0 => Rotation::None,
            90 => Rotation::Quarter,
            180 => Rotation::Half,
            _ => Rotation::ThreeQuarters,
        })
    }

    pub fn degrees(self) -> u16 {
        match self {
            Rotation::None => 0,
            Rotation::Quarter => 90,
            Rotation::Half => 180,
            Rotation::ThreeQuarters => 270,
        }
    }

    /// Whether the turn swaps width and height.
    fn sideways(self) -> bool {
        matches!(self, Rotation::Quarter | Rotation::ThreeQuarters)
    }
}

/// How to show a camera frame upright: turn it clockwise by `rotation`,
/// then flip it left to right if `mirrored` (a front camera shown as a
/// mirror).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Orientation {
    pub rotation: Rotation,
    pub mirrored: bool,
}

impl Orientation {
    /// A frame that is upright already (a picture file, a test's frame).
    pub const UPRIGHT: Orientation = Orientation {
        rotation: Rotation::None,
        mirrored: false,
    };

    /// Android's camera2: the camera's `SENSOR_ORIENTATION` (degrees
    /// clockwise from the device's natural orientation), the display's
    /// rotation (`Display.getRotation()` in degrees) and whether the lens
    /// faces the player. The formula of camera2's documentation: a front
    /// camera sees the device turn the other way, and is shown mirrored.
    /// An angle that is no quarter turn counts as none.
    pub fn android(sensor: i32, display: i32, front: bool) -> Orientation {
        let degrees = if front {
            sensor.saturating_add(display)
        } else {
            sensor.saturating_sub(display)
        };
        Orientation {
            rotation: Rotation::from_degrees(degrees).unwrap_or_default(),
            mirrored: front,
        }
    }

    /// iOS's AVFoundation, for an app shown in portrait: the capture
    /// connection's `videoOrientation` (1 portrait, 2 portrait upside
    /// down, 3 landscape right, 4 landscape left; the video data output's
    /// buffers come in landscape right unless it is set) and
    /// `isVideoMirrored`. An unknown value counts as upright.
    pub fn ios(video_orientation: isize, mirrored: bool) -> Orientation {
        let rotation = match video_orientation {
            2 => Rotation::Half,
            3 => Rotation::Quarter,
            4 => Rotation::ThreeQuarters,
            _ => Rotation::None,
        };
        Orientation { rotation, mirrored }
    }
}

/// `frame` turned upright and mirrored as its orientation says, scaled
/// down (to the nearest pixel) so that its longer side is at most
/// `longest` pixels (at least one), as RGB for a `slint::Image`.
pub fn preview(frame: &GreyFrame<'_>, longest: usize) -> SharedPixelBuffer<Rgb8Pixel> {
    let Orientation { rotation, mirrored } = frame.orientation();
    let (width, height, stride) = (frame.width(), frame.height(), frame.stride());
    // The upright picture's size, and the preview's.
    let (wide, high) = if rotation.sideways() {
        (height, width)
    } else {
        (width, height)
    };
    let longest = longest.max(1);
    let (out_w, out_h) = if wide.max(high) <= longest {
        (wide, high)
    } else if wide >= high {
        (longest, (high * longest / wide).max(1))
    } else {
        ((wide * longest / high).max(1), longest)
    };
    // The upright pixel at the centre of each preview pixel's cell.
    let upright = |out: usize, of: usize, size: usize| (2 * out + 1) * size / (2 * of);
    // Where upright column `u` and row `v` are in the frame: the offset of
    // a pixel is a column part plus a row part, whatever the turn.
    let column = |u: usize| match rotation {
        Rotation::None => u,
        Rotation::Quarter => (height - 1 - u) * stride,
        Rotation::Half => width - 1 - u,
        Rotation::ThreeQuarters => u * stride,
    };
    let row = |v: usize| match rotation {
        Rotation::None => v * stride,
        Rotation::Quarter => v,
        Rotation::Half => (height - 1 - v) * stride,
        Rotation::ThreeQuarters => width - 1 - v,
    };
    let columns: Vec<usize> = (0..out_w)
        .map(|x| {
            let u = upright(x, out_w, wide);
            column(if mirrored { wide - 1 - u } else { u })
        })
        .collect();
    let data = frame.data();
    let mut buffer = SharedPixelBuffer::<Rgb8Pixel>::new(out_w as u32, out_h as u32);
    for (y, line) in buffer.make_mut_slice().chunks_exact_mut(out_w).enumerate() {
        let start = row(upright(y, out_h, high));
        for (pixel, &offset) in line.iter_mut().zip(&columns) {
            let grey = data[start + offset];
            *pixel = Rgb8Pixel::new(grey, grey, grey);
        }
    }
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MARK: u8 = 0;

    /// A 4×3 white frame (wider than high, as a camera's) with one black
    /// pixel in its top left corner.
    fn marked() -> Vec<u8> {
        let mut pixels = vec![255; 4 * 3];
        pixels[0] = MARK;
        pixels
    }

    /// Where the black pixel is in the preview, and its size.
    fn mark_and_size(orientation: Orientation) -> ((usize, usize), (u32, u32)) {
        let pixels = marked();
        let frame = GreyFrame::new(&pixels, 4, 3, 4)
            .unwrap()
            .oriented(orientation);
        let shown = preview(&frame, 100);
        let width = shown.width() as usize;
        let at = shown
            .as_slice()
            .iter()
            .position(|p| p.r == MARK)
            .expect("the mark is shown");
        ((at % width, at / width), (shown.width(), shown.height()))
    }

    #[test]
    fn the_marked_corner_lands_where_each_turn_and_mirror_puts_it() {
        use Rotation::*;
        // (turn, mirrored) → the mark's corner in the upright picture.
        let cases = [
            ((None, false), (0, 0)),
            ((Quarter, false), (2, 0)),
            ((Half, false), (3, 2)),
            ((ThreeQuarters, false), (0, 3)),
            ((None, true), (3, 0)),
            ((Quarter, true), (0, 0)),
            ((Half, true), (0, 2)),
            ((ThreeQuarters, true), (2, 3)),
        ];
        for ((rotation, mirrored), corner) in cases {
            let orientation = Orientation { rotation, mirrored };
            let size = if rotation.sideways() { (3, 4) } else { (4, 3) };
            assert_eq!(
                mark_and_size(orientation),
                (corner, size),
                "{orientation:?}"
            );
        }
    }

    #[test]
    fn a_padded_frame_shows_none_of_its_padding() {
        // Rows of 3 pixels 5 bytes apart; the padding is black.
        let pixels = [9, 9, 9, 0, 0, 9, 9, 9, 0, 0, 9, 9, 9];
        let frame = GreyFrame::new(&pixels, 3, 3, 5).unwrap();
        for rotation in [
            Rotation::None,
            Rotation::Quarter,
            Rotation::Half,
            Rotation::ThreeQuarters,
        ] {
            let frame = frame.oriented(Orientation {
                rotation,
                mirrored: true,
            });
            assert!(preview(&frame, 10).as_slice().iter().all(|p| p.r == 9));
        }
    }

    #[test]
    fn a_camera_frame_is_scaled_down_to_the_preview_side_upright() {
        let (width, height) = (1280, 720);
        let mut pixels = vec![255; width * height];
        // A dark 64-pixel block in the sensor's top left corner.
        for y in 0..64 {
            pixels[y * width..y * width + 64].fill(0);
        }
        let frame = GreyFrame::new(&pixels, width, height, width)
            .unwrap()
            .oriented(Orientation::android(90, 0, false));
        let shown = preview(&frame, PREVIEW_SIDE);
        assert_eq!((shown.width(), shown.height()), (270, 480));
        let at = |x: usize, y: usize| shown.as_slice()[y * 270 + x].r;
        // Turned a quarter clockwise: the block is in the top right.
        assert_eq!((at(269, 0), at(0, 0), at(269, 479)), (0, 255, 255));
    }

    #[test]
    fn android_and_ios_report_their_turns() {
        let turn = |o: Orientation| (o.rotation.degrees(), o.mirrored);
        // Most phones: the back sensor at 90°, the front one at 270°.
        assert_eq!(turn(Orientation::android(90, 0, false)), (90, false));
        assert_eq!(turn(Orientation::android(270, 0, true)), (270, true));
        // The display turned a quarter: the back camera less, the front more.
        assert_eq!(turn(Orientation::android(90, 90, false)), (0, false));
        assert_eq!(turn(Orientation::android(270, 90, true)), (0, true));
        assert_eq!(turn(Orientation::android(0, 270, false)), (90, false));
        // Nonsense from a broken driver is no turn.
        assert_eq!(turn(Orientation::android(45, 0, false)), (0, false));
        assert_eq!(
            turn(Orientation::android(i32::MIN, i32::MAX, true)),
            (0, true)
        );
        assert_eq!(turn(Orientation::ios(1, false)), (0, false));
        assert_eq!(turn(Orientation::ios(2, false)), (180, false));
        assert_eq!(turn(Orientation::ios(3, false)), (90, false));
        assert_eq!(turn(Orientation::ios(4, true)), (270, true));
        assert_eq!(turn(Orientation::ios(-7, false)), (0, false));
    }

    #[test]
    fn degrees_are_read_in_quarter_turns_only() {
        assert_eq!(Rotation::from_degrees(-90), Some(Rotation::ThreeQuarters));
        assert_eq!(Rotation::from_degrees(450), Some(Rotation::Quarter));
        assert_eq!(Rotation::from_degrees(100), None);
    }

    proptest! {
        #[test]
        fn any_frame_gives_a_preview_within_the_side(
            width in 1usize..40,
            height in 1usize..40,
            pad in 0usize..3,
            quarter in 0i32..4,
            mirrored in any::<bool>(),
            longest in 0usize..50,
        ) {
            let stride = width + pad;
            let pixels = vec![7; stride * height];
            let orientation = Orientation {
                rotation: Rotation::from_degrees(quarter * 90).unwrap(),
                mirrored,
            };
            let frame = GreyFrame::new(&pixels, width, height, stride).unwrap().oriented(orientation);
            let shown = preview(&frame, longest);
            let side = shown.width().max(shown.height()) as usize;
            prop_assert!(side >= 1 && side <= longest.max(1));
            prop_assert!(shown.as_slice().iter().all(|p| p.r == 7));
        }
    }
}
