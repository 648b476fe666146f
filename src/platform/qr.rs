//! Reading the host's QR code: grey-scale pictures (camera frames on the
//! phones, image files on desktops) → `rqrr` → the text in the code → a
//! ticket.
//!
//! Both phones hand over camera frames as luminance planes (the Y plane of
//! the YUV frames Android's camera2 and iOS's AVFoundation produce), so the
//! decoding is one piece of Rust, shared and tested on Linux. The codes may
//! appear turned or mirrored (a front camera); `rqrr` reads both.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use super::preview::Orientation;

/// The largest picture decoded, in pixels (a 12-megapixel photo). Camera
/// frames are far smaller; the limit keeps a huge image file from taking
/// the memory that decoding needs.
pub const MAX_PIXELS: usize = 4096 * 3072;

/// Why a picture cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("a {width}×{height} picture is empty")]
    Empty { width: usize, height: usize },
    #[error("a {width}×{height} picture is larger than {MAX_PIXELS} pixels")]
    TooLarge { width: usize, height: usize },
    #[error("rows {stride} bytes apart cannot hold {width} pixels each")]
    Stride { width: usize, stride: usize },
    #[error(
        "a {width}×{height} picture with rows {stride} bytes apart needs {needed} bytes, not {len}"
    )]
    Short {
        width: usize,
        height: usize,
        stride: usize,
        needed: usize,
        len: usize,
    },
    #[error("cannot read the picture {path}: {source}")]
    Image {
        path: String,
        source: image::ImageError,
    },
}

/// A grey-scale picture borrowed from a camera or a decoded image: one
/// luminance byte per pixel (0 black, 255 white), row after row, each row
/// starting `stride` bytes after the previous one (camera buffers pad rows),
/// with how it is turned from upright (cameras deliver their sensor's
/// picture, sideways on most phones).
#[derive(Clone, Copy)]
pub struct GreyFrame<'a> {
    data: &'a [u8],
    width: usize,
    height: usize,
    stride: usize,
    orientation: Orientation,
}

impl<'a> GreyFrame<'a> {
    /// The frame in `data`, checked to hold `height` rows of `width` pixels
    /// `stride` bytes apart (the last row may end without padding).
    pub fn new(
        data: &'a [u8],
        width: usize,
        height: usize,
        stride: usize,
    ) -> Result<GreyFrame<'a>, FrameError> {
        if width == 0 || height == 0 {
            return Err(FrameError::Empty { width, height });
        }
        if width.saturating_mul(height) > MAX_PIXELS {
            return Err(FrameError::TooLarge { width, height });
        }
        if stride < width {
            return Err(FrameError::Stride { width, stride });
        }
        // Cannot overflow: height·width ≤ MAX_PIXELS, and a stride so large
        // that this overflows could not describe a slice that exists.
        let needed = stride
            .checked_mul(height - 1)
            .and_then(|n| n.checked_add(width));
        match needed {
            Some(needed) if needed <= data.len() => Ok(GreyFrame {
                data,
                width,
                height,
                stride,
                orientation: Orientation::UPRIGHT,
            }),
            _ => Err(FrameError::Short {
                width,
                height,
                stride,
                needed: needed.unwrap_or(usize::MAX),
                len: data.len(),
            }),
        }
    }

    /// The frame as a camera reports it turned (a new frame is upright).
    pub fn oriented(self, orientation: Orientation) -> GreyFrame<'a> {
        GreyFrame {
            orientation,
            ..self
        }
    }

    pub fn orientation(&self) -> Orientation {
        self.orientation
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// The bytes from one row's start to the next.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The pixels: row `y` starts at `y * stride`.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The luminance at column `x` of row `y`.
    pub fn at(&self, x: usize, y: usize) -> u8 {
        self.data[y * self.stride + x]
    }

    /// The text of every QR code in the frame that decodes, in the order
    /// `rqrr` finds them.
    pub fn texts(&self) -> Vec<String> {
        // rqrr asserts on some degenerate pictures instead of failing
        // (WanzenBug/rqrr#54, open; our `scan_frame` fuzzer found one in
        // two minutes): such a frame shows no code it can read.
        quiet_decoder_panics();
        std::panic::catch_unwind(|| {
            let mut prepared =
                rqrr::PreparedImage::prepare_from_greyscale(self.width, self.height, |x, y| {
                    self.at(x, y)
                });
            prepared
                .detect_grids()
                .into_iter()
                .filter_map(|grid| grid.decode().ok().map(|(_, text)| text))
                .collect()
        })
        .unwrap_or_default()
    }

    /// The first QR code in the frame that holds a `T` (a join ticket).
    pub fn scan<T>(&self) -> Scan<T>
    where
        T: FromStr,
    {
        let mut scan = Scan::Nothing;
        for text in self.texts() {
            match text.parse() {
                Ok(found) => return Scan::Found(found),
                Err(_) => scan = Scan::Other { text },
            }
        }
        scan
    }
}

/// Keeps the panic hook from printing a message for a panic in rqrr, which
/// [`GreyFrame::texts`] catches: it means only a picture without a code,
/// and a player running the desktop app from a terminal would take it for
/// a crash. Every other panic goes to the hook set before, as ever.
fn quiet_decoder_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // rqrr's sources sit in a folder `rqrr-<version>`.
            let in_decoder = info.location().is_some_and(|at| {
                std::path::Path::new(at.file())
                    .components()
                    .any(|part| part.as_os_str().to_string_lossy().starts_with("rqrr-"))
            });
            if !in_decoder {
                previous(info);
            }
        }));
    });
}

impl fmt::Debug for GreyFrame<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GreyFrame({}×{}, {:?})",
            self.width, self.height, self.orientation
        )
    }
}

/// What one look at a picture found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scan<T> {
    /// No readable QR code (none in view, blurred, too small).
    Nothing,
    /// A QR code that is not a ticket (a web link, a damaged ticket): its
    /// text, so that the player learns why (the wrong code, or a damaged
    /// or newer ticket).
    Other { text: String },
    /// A QR code holding a ticket.
    Found(T),
}

/// Reads the QR codes of an image file (PNG or JPEG), as on a desktop,
/// where the host's code arrives as a screenshot or a photo.
pub fn scan_file<T>(path: &Path) -> Result<Scan<T>, FrameError>
where
    T: FromStr,
{
    let image_error = |source| FrameError::Image {
        path: path.display().to_string(),
        source,
    };
    let mut reader = image::ImageReader::open(path)
        .and_then(|reader| reader.with_guessed_format())
        .map_err(|e| image_error(e.into()))?;
    // Refuses a huge picture before decoding it: 8-bit RGBA takes four bytes
    // a pixel (a 16-bit PNG is refused at half the size).
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(4 * MAX_PIXELS as u64);
    reader.limits(limits);
    let grey = reader.decode().map_err(image_error)?.into_luma8();
    let (width, height) = (grey.width() as usize, grey.height() as usize);
    Ok(GreyFrame::new(grey.as_raw(), width, height, width)?.scan())
}
