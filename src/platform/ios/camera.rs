//! The back camera through AVFoundation: an `AVCaptureSession` at 640×480
//! feeding an `AVCaptureVideoDataOutput`, whose frames arrive in the
//! camera's native bi-planar YUV format; plane 0 (luminance) is the
//! grey-scale frame the QR decoder reads, as on Android. Each frame carries
//! its connection's orientation and mirroring, which the scan screen's
//! picture undoes ([`crate::platform::preview`]).
//!
//! Late frames are discarded by AVFoundation while one is decoded
//! (`alwaysDiscardsLateVideoFrames`), so the decoder always sees the
//! newest. `startRunning` and `stopRunning` block until the camera has
//! started or stopped, so they run on a serial queue of their own, as
//! Apple asks, not on the UI's thread; a stopped camera's frames are
//! dropped at once ([`Frames`]), before its session has stopped. The permission is AVFoundation's: asking shows the system's
//! dialog and the answer arrives on a dispatch queue, which we pass on as
//! a resume of the camera session ([`AvPermission::request`]).

use std::sync::{Arc, Mutex, MutexGuard};

use block2::RcBlock;
use dispatch2::{DispatchQueue, DispatchRetained};
use objc2::rc::Retained;
use objc2::runtime::{Bool, NSObject, NSObjectProtocol, ProtocolObject};
use objc2::{AllocAnyThread, DefinedClass, define_class, msg_send};
use objc2_av_foundation::{
    AVAuthorizationStatus, AVCaptureConnection, AVCaptureDevice, AVCaptureDeviceInput,
    AVCaptureOutput, AVCaptureSession, AVCaptureSessionPreset640x480, AVCaptureVideoDataOutput,
    AVCaptureVideoDataOutputSampleBufferDelegate, AVMediaTypeVideo,
};
use objc2_core_media::CMSampleBuffer;
use objc2_core_video::{
    CVPixelBufferGetBaseAddressOfPlane, CVPixelBufferGetBytesPerRowOfPlane,
    CVPixelBufferGetHeightOfPlane, CVPixelBufferGetWidthOfPlane, CVPixelBufferIsPlanar,
    CVPixelBufferLockBaseAddress, CVPixelBufferLockFlags, CVPixelBufferUnlockBaseAddress,
    kCVReturnSuccess,
};

use crate::platform::camera::{Camera, CameraError, CameraPermission, ErrorSink, FrameSink};
use crate::platform::preview::Orientation;
use crate::platform::qr::GreyFrame;

/// Where the frames of one start go, while it lasts.
struct Frames {
    sink: FrameSink,
    /// Held while a frame is handed on; `false` once the camera is stopped.
    open: Mutex<bool>,
}

impl Frames {
    fn open(&self) -> MutexGuard<'_, bool> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

define_class!(
    /// Receives AVFoundation's frames on the camera's dispatch queue.
    #[unsafe(super = NSObject)]
    #[name = "CloveceFrameDelegate"]
    #[ivars = Arc<Frames>]
    struct FrameDelegate;

    unsafe impl NSObjectProtocol for FrameDelegate {}

    unsafe impl AVCaptureVideoDataOutputSampleBufferDelegate for FrameDelegate {
        #[unsafe(method(captureOutput:didOutputSampleBuffer:fromConnection:))]
        fn capture_output(
            &self,
            _output: &AVCaptureOutput,
            buffer: &CMSampleBuffer,
            connection: &AVCaptureConnection,
        ) {
            let frames = self.ivars();
            let open = frames.open();
            if !*open {
                return;
            }
            let turn = turn(connection);
            // SAFETY: the sample buffer is valid for the call, and its
            // pixels are read only between lock and unlock.
            unsafe {
                let Some(pixels) = buffer.image_buffer() else {
                    return;
                };
                if !CVPixelBufferIsPlanar(&pixels)
                    || CVPixelBufferLockBaseAddress(&pixels, CVPixelBufferLockFlags::ReadOnly)
                        != kCVReturnSuccess
                {
                    return;
                }
                let base = CVPixelBufferGetBaseAddressOfPlane(&pixels, 0);
                let width = CVPixelBufferGetWidthOfPlane(&pixels, 0);
                let height = CVPixelBufferGetHeightOfPlane(&pixels, 0);
                let stride = CVPixelBufferGetBytesPerRowOfPlane(&pixels, 0);
                if !base.is_null() && height > 0 {
                    let len = stride * (height - 1) + width;
                    let plane = std::slice::from_raw_parts(base.cast::<u8>(), len);
                    if let Ok(frame) = GreyFrame::new(plane, width, height, stride) {
                        (frames.sink)(frame.oriented(turn));
                    }
                }
                CVPixelBufferUnlockBaseAddress(&pixels, CVPixelBufferLockFlags::ReadOnly);
            }
        }
    }
);

/// How the connection's frames are turned from upright: the buffers
/// come in the connection's `videoOrientation` (landscape right unless
/// set), mirrored if it says so.
#[allow(
    deprecated,
    reason = "videoRotationAngle, its replacement, needs iOS 17; the app runs on iOS 15"
)]
fn turn(connection: &AVCaptureConnection) -> Orientation {
    // SAFETY: plain property reads on the connection of the running call.
    let (orientation, mirrored) =
        unsafe { (connection.videoOrientation(), connection.isVideoMirrored()) };
    Orientation::ios(orientation.0, mirrored)
}

impl FrameDelegate {
    fn new(frames: Arc<Frames>) -> Retained<FrameDelegate> {
        let this = FrameDelegate::alloc().set_ivars(frames);
        // SAFETY: NSObject's init on a freshly allocated object.
        unsafe { msg_send![super(this), init] }
    }
}

/// The back camera, running while started.
pub struct AvCamera {
    running: Option<Running>,
    /// Starts and stops the sessions, in order, off the UI's thread.
    sessions: DispatchRetained<DispatchQueue>,
}

impl Default for AvCamera {
    fn default() -> AvCamera {
        AvCamera {
            running: None,
            sessions: DispatchQueue::new("clovece.camera.session", None),
        }
    }
}

#[derive(Clone)]
struct Running {
    session: Retained<AVCaptureSession>,
    /// Kept alive while the output may still call it.
    _delegate: Retained<FrameDelegate>,
    frames: Arc<Frames>,
}

// AVCaptureSession may be started and stopped from any thread (Apple
// recommends a background one, as startRunning blocks).
unsafe impl Send for Running {}

impl Running {
    fn start(&self) {
        // SAFETY: a configured session; blocks until it runs.
        unsafe { self.session.startRunning() };
    }

    /// Stops the session (blocking until no more frames come); the
    /// delegate goes with `self`, after that.
    fn stop(self) {
        // SAFETY: as in `start`.
        unsafe { self.session.stopRunning() };
    }
}

impl Camera for AvCamera {
    /// Errors after the start are the session's to recover from: iOS
    /// interrupts it (another app, the background) and resumes it itself.
    fn start(&mut self, sink: FrameSink, _: ErrorSink) -> Result<(), CameraError> {
        self.stop();
        // SAFETY: plain AVFoundation calls on objects made here; the
        // delegate outlives the session's use of it (see `stop`).
        unsafe {
            let video = AVMediaTypeVideo.ok_or(CameraError::NoCamera)?;
            let device =
                AVCaptureDevice::defaultDeviceWithMediaType(video).ok_or(CameraError::NoCamera)?;
            let input = AVCaptureDeviceInput::deviceInputWithDevice_error(&device)
                .map_err(|e| CameraError::Failed(e.localizedDescription().to_string()))?;
            let session = AVCaptureSession::new();
            let output = AVCaptureVideoDataOutput::new();
            output.setAlwaysDiscardsLateVideoFrames(true);
            let frames = Arc::new(Frames {
                sink,
                open: Mutex::new(true),
            });
            let delegate = FrameDelegate::new(frames.clone());
            let queue = DispatchQueue::new("clovece.camera", None);
            output.setSampleBufferDelegate_queue(
                Some(ProtocolObject::from_ref(&*delegate)),
                Some(&queue),
            );
            // Every configuration begun is committed, also when it fails.
            session.beginConfiguration();
            let configured = configure(&session, &input, &output);
            session.commitConfiguration();
            configured?;
            let running = Running {
                session,
                _delegate: delegate,
                frames,
            };
            let started = running.clone();
            self.sessions.exec_async(move || started.start());
            self.running = Some(running);
        }
        Ok(())
    }

    /// Frames stop at once (one being handed on is waited for); the
    /// session stops on the sessions' queue, after any start queued.
    fn stop(&mut self) {
        if let Some(running) = self.running.take() {
            *running.frames.open() = false;
            self.sessions.exec_async(move || running.stop());
        }
    }
}

/// Adds the camera and the frames' output to `session`, between its
/// begin and commit of a configuration.
///
/// # Safety
/// `session` must be in a configuration begun and not yet committed.
unsafe fn configure(
    session: &AVCaptureSession,
    input: &AVCaptureDeviceInput,
    output: &AVCaptureVideoDataOutput,
) -> Result<(), CameraError> {
    // SAFETY: plain AVFoundation calls on live objects.
    unsafe {
        if !session.canAddInput(input) {
            return Err(CameraError::Failed("the camera cannot be used now".into()));
        }
        session.addInput(input);
        if !session.canAddOutput(output) {
            return Err(CameraError::Failed("the camera gives no frames".into()));
        }
        session.addOutput(output);
        // Setting a preset the session cannot take throws, which aborts
        // the app; without it the session keeps its own.
        if session.canSetSessionPreset(AVCaptureSessionPreset640x480) {
            session.setSessionPreset(AVCaptureSessionPreset640x480);
        }
    }
    Ok(())
}

/// What runs (on a dispatch queue) when the player has answered the
/// permission dialog; set once the camera session it resumes exists.
pub type OnAnswer = Arc<Mutex<Option<Box<dyn Fn() + Send>>>>;

/// AVFoundation's camera permission. The system's dialog does not pause
/// and resume the app as Android's does, so the answer is handed to
/// [`OnAnswer`], which resumes the camera session.
pub struct AvPermission {
    answered: OnAnswer,
}

impl AvPermission {
    pub fn new(answered: OnAnswer) -> AvPermission {
        AvPermission { answered }
    }
}

impl CameraPermission for AvPermission {
    fn granted(&self) -> bool {
        // SAFETY: a class method with the documented media type.
        unsafe {
            AVMediaTypeVideo.is_some_and(|video| {
                AVCaptureDevice::authorizationStatusForMediaType(video)
                    == AVAuthorizationStatus::Authorized
            })
        }
    }

    fn request(&mut self) -> Result<(), CameraError> {
        let answered = self.answered.clone();
        let handler = RcBlock::new(move |_: Bool| {
            if let Some(answered) = answered.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                answered();
            }
        });
        // SAFETY: a class method with the documented media type; the block
        // is copied by AVFoundation.
        unsafe {
            let video = AVMediaTypeVideo.ok_or(CameraError::NoCamera)?;
            AVCaptureDevice::requestAccessForMediaType_completionHandler(video, &handler);
        }
        Ok(())
    }
}
