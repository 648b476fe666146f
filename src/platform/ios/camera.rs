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
//! started or stopped, so sessions are made, started and stopped on a
//! serial queue of their own, as Apple's AVCam does, not on the UI's
//! thread; a stopped camera's frames are dropped at once ([`Frames`]),
//! before its session has stopped.
//!
//! The permission is AVFoundation's: asking shows the system's dialog and
//! the answer arrives on a dispatch queue, which we pass on as a retry of
//! the camera session ([`AvPermission::request`]).

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

use crate::platform::camera::{
    Camera, CameraError, CameraPermission, ErrorSink, FrameGate, FrameSink,
};
use crate::platform::preview::Orientation;
use crate::platform::qr::GreyFrame;

/// Where the frames of one start go, while it lasts.
struct Frames {
    sink: FrameSink,
    /// Closed when the camera is stopped.
    gate: FrameGate,
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
            let Some(_pass) = frames.gate.pass() else {
                return;
            };
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
    /// The frames of the present start, if any.
    frames: Option<Arc<Frames>>,
    /// Makes, starts and stops the sessions, in order, off the UI's thread.
    sessions: DispatchRetained<DispatchQueue>,
    /// The running session, which only the sessions' queue touches.
    live: Arc<Mutex<Option<Running>>>,
}

impl Default for AvCamera {
    fn default() -> AvCamera {
        AvCamera {
            frames: None,
            sessions: DispatchQueue::new("clovece.camera.session", None),
            live: Arc::default(),
        }
    }
}

/// A session the sessions' queue started; only that queue touches it.
struct Running {
    session: Retained<AVCaptureSession>,
    /// Kept alive while the output may still call it.
    _delegate: Retained<FrameDelegate>,
}

// AVCaptureSession may be used from any thread, one at a time; a `Running`
// is made, started and stopped on the sessions' serial queue only.
unsafe impl Send for Running {}

impl Running {
    /// The back camera's session, configured for `frames` and running
    /// (`startRunning` blocks until it runs).
    fn open(frames: Arc<Frames>) -> Result<Running, CameraError> {
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
            let delegate = FrameDelegate::new(frames);
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
            session.startRunning();
            Ok(Running {
                session,
                _delegate: delegate,
            })
        }
    }

    /// Stops the session (blocking until no more frames come); the
    /// delegate goes with `self`, after that.
    fn stop(self) {
        // SAFETY: a session started by `open`, on the same queue.
        unsafe { self.session.stopRunning() };
    }
}

impl Camera for AvCamera {
    /// The session is made and started on the sessions' queue, after the
    /// previous one stopped there; a failure there goes to `errors`.
    fn start(&mut self, sink: FrameSink, errors: ErrorSink) -> Result<(), CameraError> {
        self.stop();
        let frames = Arc::new(Frames {
            sink,
            gate: FrameGate::default(),
        });
        self.frames = Some(frames.clone());
        let live = self.live.clone();
        self.sessions.exec_async(move || {
            // Stopped before its turn came: the camera never turns on.
            if frames.gate.is_closed() {
                return;
            }
            match Running::open(frames) {
                Ok(running) => *lock(&live) = Some(running),
                Err(e) => errors(e),
            }
        });
        Ok(())
    }

    /// Frames stop at once (one being handed on is waited for); the
    /// session stops on the sessions' queue, after its start.
    fn stop(&mut self) {
        if let Some(frames) = self.frames.take() {
            frames.gate.close();
            let live = self.live.clone();
            self.sessions.exec_async(move || {
                if let Some(running) = lock(&live).take() {
                    running.stop();
                }
            });
        }
    }
}

fn lock(live: &Mutex<Option<Running>>) -> MutexGuard<'_, Option<Running>> {
    live.lock().unwrap_or_else(|p| p.into_inner())
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

/// AVFoundation's camera permission. The system's dialog makes the app
/// resign active and become active again, whose resume retries the
/// camera, but the answer may come after that: it is handed to
/// [`OnAnswer`], which retries the camera session.
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
