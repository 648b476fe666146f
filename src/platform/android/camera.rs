//! The back camera through the NDK's camera2 API (`libcamera2ndk`, API 24+)
//! into an `AImageReader` of YUV frames (`libmediandk`), whose Y plane is
//! the grey-scale frame the QR decoder reads.
//!
//! The reader keeps at most two images and the listener takes only the
//! newest, so frames that arrive while one is decoded are dropped. Frames
//! are 640×480: a ticket's code filling a third of the view is then ~150
//! pixels wide, three or more per module, which `rqrr` reads reliably,
//! and decoding stays well under a frame's time.
//!
//! Each frame carries the camera's turn from upright (its
//! `SENSOR_ORIENTATION`, and whether it faces the player), which the scan
//! screen's picture undoes ([`crate::platform::preview`]).
//!
//! Every NDK object is created in [`Running::open`] and freed in its `Drop`,
//! in reverse order; a failure half way frees what was made.
//!
//! Deleting the reader holds the reader's lock while it waits for the
//! listener's thread to end, and a listener inside `acquireLatestImage` or
//! `AImage_delete` waits for that same lock (AOSP's `AImageReader::close`):
//! so `Drop` first closes the listener ([`Shared::gate`]), waiting out a
//! frame in progress, and a listener called after that returns at once.

use std::ffi::{CStr, c_int, c_void};
use std::ptr;
use std::sync::Arc;

use ndk_sys as sys;

use crate::platform::camera::{Camera, CameraError, ErrorSink, FrameGate, FrameSink};
use crate::platform::preview::Orientation;
use crate::platform::qr::GreyFrame;

const WIDTH: i32 = 640;
const HEIGHT: i32 = 480;
const MAX_IMAGES: i32 = 2;

#[link(name = "camera2ndk")]
unsafe extern "C" {}

/// The back camera (or the only one), open while started.
#[derive(Default)]
pub struct NdkCamera {
    running: Option<Running>,
}

impl Camera for NdkCamera {
    fn start(&mut self, sink: FrameSink, errors: ErrorSink) -> Result<(), CameraError> {
        self.stop();
        self.running = Some(Running::open(sink, errors)?);
        Ok(())
    }

    fn stop(&mut self) {
        self.running = None;
    }
}

/// What the reader's listener and the device's callbacks share with
/// [`Running`], on their own threads: boxed, so that they never borrow it,
/// and freed only after the device is closed and the reader deleted.
struct Shared {
    frames: FrameSink,
    errors: ErrorSink,
    /// Closed by `Drop` before the reader is deleted.
    gate: FrameGate,
}

/// An open camera streaming into the reader.
struct Running {
    /// The context of the listener and the device callbacks.
    shared: *mut Shared,
    manager: *mut sys::ACameraManager,
    reader: *mut sys::AImageReader,
    device: *mut sys::ACameraDevice,
    outputs: *mut sys::ACaptureSessionOutputContainer,
    output: *mut sys::ACaptureSessionOutput,
    target: *mut sys::ACameraOutputTarget,
    request: *mut sys::ACaptureRequest,
    session: *mut sys::ACameraCaptureSession,
}

// The NDK objects may be used and freed from any thread.
unsafe impl Send for Running {}

fn camera_ok(status: sys::camera_status_t, what: &str) -> Result<(), CameraError> {
    if status == sys::camera_status_t::ACAMERA_OK {
        Ok(())
    } else if status == sys::camera_status_t::ACAMERA_ERROR_PERMISSION_DENIED {
        Err(CameraError::Denied)
    } else {
        Err(CameraError::Failed(format!(
            "{what}: camera status {}",
            status.0
        )))
    }
}

fn media_ok(status: sys::media_status_t, what: &str) -> Result<(), CameraError> {
    if status == sys::media_status_t::AMEDIA_OK {
        Ok(())
    } else {
        Err(CameraError::Failed(format!(
            "{what}: media status {}",
            status.0
        )))
    }
}

impl Running {
    fn open(frames: FrameSink, errors: ErrorSink) -> Result<Running, CameraError> {
        let shared = Shared {
            frames,
            errors,
            gate: FrameGate::default(),
        };
        let mut running = Running {
            shared: Box::into_raw(Box::new(shared)),
            manager: ptr::null_mut(),
            reader: ptr::null_mut(),
            device: ptr::null_mut(),
            outputs: ptr::null_mut(),
            output: ptr::null_mut(),
            target: ptr::null_mut(),
            request: ptr::null_mut(),
            session: ptr::null_mut(),
        };
        // SAFETY: each call gets pointers to live objects made above it;
        // whatever is made is stored in `running` at once, so its Drop
        // frees it if a later step fails.
        unsafe {
            let r = &mut running;
            r.manager = sys::ACameraManager_create();
            let (id, lens) = back_camera(r.manager)?;
            // The app is portrait only, which is the display's natural
            // orientation on phones (android/README.md).
            let front = lens.facing == Some(Facing::Front);
            let turn = Orientation::android(lens.sensor, DISPLAY_ROTATION, front);
            // Every frame of this camera carries its turn (set before the
            // listener below can run).
            let sink = (*r.shared).frames.clone();
            (*r.shared).frames = Arc::new(move |frame: GreyFrame<'_>| sink(frame.oriented(turn)));

            media_ok(
                sys::AImageReader_new(
                    WIDTH,
                    HEIGHT,
                    sys::AIMAGE_FORMATS::AIMAGE_FORMAT_YUV_420_888.0 as i32,
                    MAX_IMAGES,
                    &mut r.reader,
                ),
                "AImageReader_new",
            )?;
            let mut listener = sys::AImageReader_ImageListener {
                context: r.shared.cast(),
                onImageAvailable: Some(on_image),
            };
            media_ok(
                sys::AImageReader_setImageListener(r.reader, &mut listener),
                "AImageReader_setImageListener",
            )?;
            let mut window = ptr::null_mut();
            media_ok(
                sys::AImageReader_getWindow(r.reader, &mut window),
                "AImageReader_getWindow",
            )?;

            let mut device_callbacks = sys::ACameraDevice_StateCallbacks {
                context: r.shared.cast(),
                onDisconnected: Some(on_disconnected),
                onError: Some(on_error),
            };
            camera_ok(
                sys::ACameraManager_openCamera(
                    r.manager,
                    id.as_ptr(),
                    &mut device_callbacks,
                    &mut r.device,
                ),
                "ACameraManager_openCamera",
            )?;

            camera_ok(
                sys::ACaptureSessionOutputContainer_create(&mut r.outputs),
                "ACaptureSessionOutputContainer_create",
            )?;
            camera_ok(
                sys::ACaptureSessionOutput_create(window, &mut r.output),
                "ACaptureSessionOutput_create",
            )?;
            camera_ok(
                sys::ACaptureSessionOutputContainer_add(r.outputs, r.output),
                "ACaptureSessionOutputContainer_add",
            )?;
            camera_ok(
                sys::ACameraOutputTarget_create(window, &mut r.target),
                "ACameraOutputTarget_create",
            )?;
            camera_ok(
                sys::ACameraDevice_createCaptureRequest(
                    r.device,
                    sys::ACameraDevice_request_template::TEMPLATE_PREVIEW,
                    &mut r.request,
                ),
                "ACameraDevice_createCaptureRequest",
            )?;
            camera_ok(
                sys::ACaptureRequest_addTarget(r.request, r.target),
                "ACaptureRequest_addTarget",
            )?;
            // A code held close must come into focus by itself, where the
            // camera can (a fixed-focus one refuses the mode).
            if lens.continuous_focus {
                let focus = CONTINUOUS_FOCUS;
                camera_ok(
                    sys::ACaptureRequest_setEntry_u8(
                        r.request,
                        sys::acamera_metadata_tag::ACAMERA_CONTROL_AF_MODE.0,
                        1,
                        &focus,
                    ),
                    "ACaptureRequest_setEntry_u8",
                )?;
            }

            let session_callbacks = sys::ACameraCaptureSession_stateCallbacks {
                context: ptr::null_mut(),
                onClosed: None,
                onReady: None,
                onActive: None,
            };
            camera_ok(
                sys::ACameraDevice_createCaptureSession(
                    r.device,
                    r.outputs,
                    &session_callbacks,
                    &mut r.session,
                ),
                "ACameraDevice_createCaptureSession",
            )?;
            camera_ok(
                sys::ACameraCaptureSession_setRepeatingRequest(
                    r.session,
                    ptr::null_mut(),
                    1,
                    &mut r.request,
                    ptr::null_mut(),
                ),
                "ACameraCaptureSession_setRepeatingRequest",
            )?;
        }
        Ok(running)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // SAFETY: every pointer is null or owned by this struct; the
        // device is closed (no more callbacks) and the reader deleted
        // (which stops its listener's thread) before the shared part goes.
        unsafe {
            // The listener closes first, outside the reader's lock (see
            // the module documentation).
            (*self.shared).gate.close();
            if !self.session.is_null() {
                sys::ACameraCaptureSession_stopRepeating(self.session);
                sys::ACameraCaptureSession_close(self.session);
            }
            if !self.device.is_null() {
                sys::ACameraDevice_close(self.device);
            }
            if !self.request.is_null() {
                sys::ACaptureRequest_free(self.request);
            }
            if !self.target.is_null() {
                sys::ACameraOutputTarget_free(self.target);
            }
            if !self.outputs.is_null() {
                sys::ACaptureSessionOutputContainer_free(self.outputs);
            }
            if !self.output.is_null() {
                sys::ACaptureSessionOutput_free(self.output);
            }
            if !self.reader.is_null() {
                sys::AImageReader_delete(self.reader);
            }
            if !self.manager.is_null() {
                sys::ACameraManager_delete(self.manager);
            }
            drop(Box::from_raw(self.shared));
        }
    }
}

/// The id of the first back-facing camera, or of the first camera, with
/// what the scan needs of it.
///
/// # Safety
/// `manager` must be a live camera manager.
unsafe fn back_camera(manager: *mut sys::ACameraManager) -> Result<(Vec<u8>, Lens), CameraError> {
    let mut list = ptr::null_mut();
    // SAFETY: the list is freed below; ids are copied out before that.
    unsafe {
        camera_ok(
            sys::ACameraManager_getCameraIdList(manager, &mut list),
            "ACameraManager_getCameraIdList",
        )?;
        let count = usize::try_from((*list).numCameras).unwrap_or(0);
        let cameras: Vec<(&CStr, Lens)> = (0..count)
            .map(|i| CStr::from_ptr(*(*list).cameraIds.add(i)))
            .map(|id| (id, lens(manager, id)))
            .collect();
        let chosen = cameras
            .iter()
            .find(|(_, lens)| lens.facing == Some(Facing::Back))
            .or(cameras.first())
            .map(|(id, lens)| (id.to_bytes_with_nul().to_vec(), *lens));
        sys::ACameraManager_deleteCameraIdList(list);
        chosen.ok_or(CameraError::NoCamera)
    }
}

/// The display's rotation from its natural orientation (`Display.getRotation()`
/// in degrees): the activity is locked to portrait, the natural orientation
/// of phones.
const DISPLAY_ROTATION: i32 = 0;

/// What the scan needs of a camera's characteristics.
#[derive(Clone, Copy, Debug, Default)]
struct Lens {
    /// `LENS_FACING`, if it is known and front or back (not external).
    facing: Option<Facing>,
    /// `SENSOR_ORIENTATION`, degrees clockwise.
    sensor: i32,
    /// Whether `CONTROL_AF_AVAILABLE_MODES` lists continuous focus.
    continuous_focus: bool,
}

const CONTINUOUS_FOCUS: u8 =
    sys::acamera_metadata_enum_acamera_control_af_mode::ACAMERA_CONTROL_AF_MODE_CONTINUOUS_PICTURE.0
        as u8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Facing {
    Front,
    Back,
}

/// The characteristics of camera `id` (all unknown if they cannot be read).
///
/// # Safety
/// `manager` must be a live camera manager.
unsafe fn lens(manager: *mut sys::ACameraManager, id: &CStr) -> Lens {
    // SAFETY: the metadata is freed before returning; entries are read
    // only while it lives and only when they have a value.
    unsafe {
        let mut meta = ptr::null_mut();
        if sys::ACameraManager_getCameraCharacteristics(manager, id.as_ptr(), &mut meta)
            != sys::camera_status_t::ACAMERA_OK
        {
            return Lens::default();
        }
        let entry = |tag: sys::acamera_metadata_tag| {
            let mut entry = std::mem::zeroed::<sys::ACameraMetadata_const_entry>();
            (sys::ACameraMetadata_getConstEntry(meta, tag.0, &mut entry)
                == sys::camera_status_t::ACAMERA_OK
                && entry.count > 0)
                .then_some(entry)
        };
        use sys::acamera_metadata_enum_acamera_lens_facing as LensFacing;
        let facing = entry(sys::acamera_metadata_tag::ACAMERA_LENS_FACING).and_then(|e| {
            match u32::from(*e.data.u8_) {
                f if f == LensFacing::ACAMERA_LENS_FACING_FRONT.0 => Some(Facing::Front),
                f if f == LensFacing::ACAMERA_LENS_FACING_BACK.0 => Some(Facing::Back),
                _ => None,
            }
        });
        let sensor = entry(sys::acamera_metadata_tag::ACAMERA_SENSOR_ORIENTATION)
            .map_or(0, |e| *e.data.i32_);
        let continuous_focus = entry(sys::acamera_metadata_tag::ACAMERA_CONTROL_AF_AVAILABLE_MODES)
            .is_some_and(|e| {
                let count = usize::try_from(e.count).unwrap_or(0);
                std::slice::from_raw_parts(e.data.u8_, count).contains(&CONTINUOUS_FOCUS)
            });
        sys::ACameraMetadata_free(meta);
        Lens {
            facing,
            sensor,
            continuous_focus,
        }
    }
}

/// A new image is ready: the newest is decoded, older ones dropped.
unsafe extern "C" fn on_image(context: *mut c_void, reader: *mut sys::AImageReader) {
    // SAFETY: `context` is the boxed shared part, alive until `Running`'s
    // Drop has deleted this reader; the image is deleted before returning
    // and the frame borrowed only meanwhile.
    unsafe {
        let shared = &*(context as *const Shared);
        let Some(_pass) = shared.gate.pass() else {
            return;
        };
        let sink = &shared.frames;
        let mut image = ptr::null_mut();
        if sys::AImageReader_acquireLatestImage(reader, &mut image)
            != sys::media_status_t::AMEDIA_OK
        {
            return;
        }
        let (mut width, mut height, mut stride, mut len) = (0, 0, 0, 0 as c_int);
        let mut data = ptr::null_mut();
        let ok = sys::AImage_getWidth(image, &mut width) == sys::media_status_t::AMEDIA_OK
            && sys::AImage_getHeight(image, &mut height) == sys::media_status_t::AMEDIA_OK
            && sys::AImage_getPlaneRowStride(image, 0, &mut stride)
                == sys::media_status_t::AMEDIA_OK
            && sys::AImage_getPlaneData(image, 0, &mut data, &mut len)
                == sys::media_status_t::AMEDIA_OK
            && !data.is_null();
        if ok {
            let plane = std::slice::from_raw_parts(data, usize::try_from(len).unwrap_or(0));
            let size = |n: i32| usize::try_from(n).unwrap_or(0);
            if let Ok(frame) = GreyFrame::new(plane, size(width), size(height), size(stride)) {
                sink(frame);
            }
        }
        sys::AImage_delete(image);
    }
}

/// The camera was taken by another app: frames stop, and the scan screen
/// says so until it is opened again.
unsafe extern "C" fn on_disconnected(context: *mut c_void, _: *mut sys::ACameraDevice) {
    // SAFETY: `context` is the boxed shared part, alive until `Running`'s
    // Drop has closed this device.
    let shared = unsafe { &*(context as *const Shared) };
    // Not while `Drop` closes the camera itself.
    if !shared.gate.is_closed() {
        (shared.errors)(CameraError::Failed("another app took the camera".into()));
    }
}

/// The camera failed: as when it is taken away, with the NDK's error code.
unsafe extern "C" fn on_error(context: *mut c_void, _: *mut sys::ACameraDevice, error: c_int) {
    // SAFETY: as in `on_disconnected`.
    let shared = unsafe { &*(context as *const Shared) };
    if !shared.gate.is_closed() {
        (shared.errors)(CameraError::Failed(format!("camera device error {error}")));
    }
}
