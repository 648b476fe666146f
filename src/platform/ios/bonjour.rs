//! Discovery through the system's Bonjour (DNS-SD, `dns_sd.h` in
//! libSystem), for the records libp2p's mDNS uses, so iPhones and the
//! libp2p phones find each other without the multicast entitlement.
//!
//! This phone registers the service `_p2p._udp` under its peer id with a
//! TXT record of `dnsaddr=` strings ([`txt_record`]); libp2p's mDNS reads
//! that TXT record from the additional records of the answer to its query.
//! Browsing finds every instance of the service (libp2p names them at
//! random), and a TXT query per instance reads its addresses
//! ([`txt_peer`]); libp2p announces one TXT record per address, so the
//! addresses of an instance are gathered across the answers.
//!
//! All operations share one connection to the mDNS daemon, whose socket a
//! worker thread polls; the callbacks run on that thread, inside
//! `DNSServiceProcessResult`, so the state needs no lock. When the daemon
//! cuts the connection (iOS does for a suspended app), the worker
//! connects, registers and browses again.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;

use crate::platform::PlatformError;
use crate::platform::discovery::{
    Announcement, Browsed, Discovering, Discovery, Find, NearbySink, SERVICE, txt_record,
};

type DNSServiceRef = *mut c_void;
type DNSServiceFlags = u32;
type DNSServiceErrorType = i32;

const NO_ERROR: DNSServiceErrorType = 0;
const FLAGS_ADD: DNSServiceFlags = 0x2;
const FLAGS_SHARE_CONNECTION: DNSServiceFlags = 0x4000;
const TYPE_TXT: u16 = 16;
const CLASS_IN: u16 = 1;
/// `kDNSServiceMaxDomainName`.
const MAX_DOMAIN_NAME: usize = 1009;

type RegisterReply = unsafe extern "C" fn(
    DNSServiceRef,
    DNSServiceFlags,
    DNSServiceErrorType,
    *const c_char,
    *const c_char,
    *const c_char,
    *mut c_void,
);
type BrowseReply = unsafe extern "C" fn(
    DNSServiceRef,
    DNSServiceFlags,
    u32,
    DNSServiceErrorType,
    *const c_char,
    *const c_char,
    *const c_char,
    *mut c_void,
);
type QueryRecordReply = unsafe extern "C" fn(
    DNSServiceRef,
    DNSServiceFlags,
    u32,
    DNSServiceErrorType,
    *const c_char,
    u16,
    u16,
    u16,
    *const c_void,
    u32,
    *mut c_void,
);

unsafe extern "C" {
    fn DNSServiceCreateConnection(sd_ref: *mut DNSServiceRef) -> DNSServiceErrorType;
    fn DNSServiceRegister(
        sd_ref: *mut DNSServiceRef,
        flags: DNSServiceFlags,
        interface_index: u32,
        name: *const c_char,
        regtype: *const c_char,
        domain: *const c_char,
        host: *const c_char,
        port: u16,
        txt_len: u16,
        txt_record: *const c_void,
        callback: Option<RegisterReply>,
        context: *mut c_void,
    ) -> DNSServiceErrorType;
    fn DNSServiceBrowse(
        sd_ref: *mut DNSServiceRef,
        flags: DNSServiceFlags,
        interface_index: u32,
        regtype: *const c_char,
        domain: *const c_char,
        callback: Option<BrowseReply>,
        context: *mut c_void,
    ) -> DNSServiceErrorType;
    fn DNSServiceQueryRecord(
        sd_ref: *mut DNSServiceRef,
        flags: DNSServiceFlags,
        interface_index: u32,
        fullname: *const c_char,
        rrtype: u16,
        rrclass: u16,
        callback: Option<QueryRecordReply>,
        context: *mut c_void,
    ) -> DNSServiceErrorType;
    fn DNSServiceConstructFullName(
        full_name: *mut c_char,
        service: *const c_char,
        regtype: *const c_char,
        domain: *const c_char,
    ) -> DNSServiceErrorType;
    fn DNSServiceRefSockFD(sd_ref: DNSServiceRef) -> c_int;
    fn DNSServiceProcessResult(sd_ref: DNSServiceRef) -> DNSServiceErrorType;
    fn DNSServiceRefDeallocate(sd_ref: DNSServiceRef);
}

/// How long the worker waits for the daemon before looking at the stop
/// flag again.
const POLL_MS: c_int = 200;

/// Bonjour discovery (see the module documentation).
#[derive(Debug, Default)]
pub struct Bonjour;

impl Discovery for Bonjour {
    fn swarm_mdns(&self) -> bool {
        false
    }

    fn start(&self, me: &Announcement, nearby: NearbySink) -> Result<Discovering, PlatformError> {
        let stop = Arc::new(AtomicBool::new(false));
        let (started, result) = mpsc::channel();
        let me = me.clone();
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("bonjour".into())
            .spawn(move || run(&me, nearby, &flag, &started))
            .map_err(|e| PlatformError::Discovery(e.to_string()))?;
        match result.recv() {
            Ok(Ok(())) => Ok(Discovering::new(Worker {
                stop,
                thread: Some(thread),
            })),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(PlatformError::Discovery("its thread ended".into())),
        }
    }
}

/// The worker thread of one running discovery, stopped when dropped (its
/// connection to the daemon, and so the registration, ends with it).
struct Worker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the worker knows, reached from the callbacks through `context`.
struct Session {
    connection: DNSServiceRef,
    nearby: NearbySink,
    /// The instances found, keyed to their TXT queries.
    browsed: Browsed<DNSServiceRef>,
}

fn check(what: &str, error: DNSServiceErrorType) -> Result<(), PlatformError> {
    if error == NO_ERROR {
        Ok(())
    } else {
        Err(PlatformError::Discovery(format!(
            "{what} failed with DNS-SD error {error}"
        )))
    }
}

/// The TCP port of the first address (`/ip4/…/tcp/<port>`): DNS-SD needs
/// one for the service record, although libp2p reads only the TXT record.
fn port(me: &Announcement) -> u16 {
    me.addrs
        .iter()
        .find_map(|a| {
            let mut parts = a.split('/');
            parts.find(|&p| p == "tcp")?;
            parts.next()?.parse().ok()
        })
        .unwrap_or(9)
}

/// How long the worker waits before it connects to the daemon again once
/// the connection was cut.
const RECONNECT_MS: u64 = 1000;

fn run(
    me: &Announcement,
    nearby: NearbySink,
    stop: &AtomicBool,
    started: &mpsc::Sender<Result<(), PlatformError>>,
) {
    // One pointer to the session for the worker and the callbacks alike
    // (they reach it through `context`), never a reference held across a
    // call that runs them. It outlives every operation: all are
    // deallocated with the connection (`disconnect`) before it is freed.
    let session = Box::into_raw(Box::new(Session {
        connection: ptr::null_mut(),
        nearby,
        browsed: Browsed::new(&me.peer),
    }));
    // SAFETY (each block below): `session` is valid until freed at the
    // end, and connected only between `connect` and `disconnect`.
    let setup = unsafe { connect(session, me) };
    let failed = setup.is_err();
    let _ = started.send(setup);
    if !failed {
        loop {
            let cut = unsafe { serve((*session).connection, stop) };
            unsafe { disconnect(session) };
            let Some(error) = cut else { break };
            // iOS cuts a suspended app's connection to the daemon (defunct
            // connection, when the app comes back), and the daemon may
            // restart: the phone is announced and looks for the others
            // again as soon as it can.
            eprintln!("clovece: Bonjour connection lost (error {error}); connecting again");
            if !reconnected(session, me, stop) {
                break;
            }
        }
    }
    // SAFETY: as above; nothing uses the session after this.
    unsafe {
        disconnect(session);
        drop(Box::from_raw(session));
    }
}

/// Connects `session` again after [`RECONNECT_MS`], and again after each
/// failure: whether it did before `stop` was set.
fn reconnected(session: *mut Session, me: &Announcement, stop: &AtomicBool) -> bool {
    while waited(stop, RECONNECT_MS) {
        // SAFETY: as in `run`.
        match unsafe { connect(session, me) } {
            Ok(()) => return true,
            Err(e) => {
                eprintln!("clovece: Bonjour cannot connect again: {e}");
                unsafe { disconnect(session) };
            }
        }
    }
    false
}

/// Connects `session` to the daemon, registers this phone and browses.
///
/// # Safety
/// `session` must be valid and not connected, and stay valid until
/// [`disconnect`].
unsafe fn connect(session: *mut Session, me: &Announcement) -> Result<(), PlatformError> {
    // SAFETY: as the caller promises; see `run`.
    unsafe {
        let mut connection = ptr::null_mut();
        check(
            "DNSServiceCreateConnection",
            DNSServiceCreateConnection(&mut connection),
        )?;
        (*session).connection = connection;
        let context = session.cast::<c_void>();
        let service = CString::new(SERVICE).expect("no NUL");
        let name = CString::new(me.peer.as_str())
            .map_err(|_| PlatformError::Discovery("a NUL in the peer id".into()))?;
        let txt = txt_record(me);
        let txt_len = u16::try_from(txt.len())
            .map_err(|_| PlatformError::Discovery("too many addresses to announce".into()))?;
        let mut register = connection;
        check(
            "DNSServiceRegister",
            DNSServiceRegister(
                &mut register,
                FLAGS_SHARE_CONNECTION,
                0,
                name.as_ptr(),
                service.as_ptr(),
                ptr::null(),
                ptr::null(),
                port(me).to_be(),
                txt_len,
                // No records: no TXT at all (an empty one is malformed).
                if txt.is_empty() {
                    ptr::null()
                } else {
                    txt.as_ptr().cast()
                },
                Some(on_registered),
                context,
            ),
        )?;
        let mut browse = connection;
        check(
            "DNSServiceBrowse",
            DNSServiceBrowse(
                &mut browse,
                FLAGS_SHARE_CONNECTION,
                0,
                service.as_ptr(),
                ptr::null(),
                Some(on_browsed),
                context,
            ),
        )
    }
}

/// Runs the callbacks of the operations on `connection` until `stop` is
/// set (`None`) or the daemon's connection fails (its error).
///
/// # Safety
/// `connection` must be a connection made by [`connect`], not yet
/// deallocated.
unsafe fn serve(connection: DNSServiceRef, stop: &AtomicBool) -> Option<DNSServiceErrorType> {
    // SAFETY: as the caller promises.
    unsafe {
        let fd = DNSServiceRefSockFD(connection);
        while !stop.load(Ordering::Relaxed) {
            let mut poll = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            if libc::poll(&mut poll, 1, POLL_MS) > 0 {
                let processed = DNSServiceProcessResult(connection);
                if processed != NO_ERROR {
                    return Some(processed);
                }
            }
        }
    }
    None
}

/// Ends `session`'s connection, if it has one, and with it every
/// operation on it, the instances' TXT queries too: the peers they had
/// found are reported lost (a browse made again finds those still there).
///
/// # Safety
/// `session` must be valid, and no callback running.
unsafe fn disconnect(session: *mut Session) {
    // SAFETY: as the caller promises.
    unsafe {
        let connection = std::mem::replace(&mut (*session).connection, ptr::null_mut());
        if connection.is_null() {
            return;
        }
        DNSServiceRefDeallocate(connection);
        let lost = (*session).browsed.forget();
        let nearby = (*session).nearby.clone();
        for peer in lost {
            nearby(peer);
        }
    }
}

/// Waits `ms`, looking at `stop` every [`POLL_MS`]: whether it was not set.
fn waited(stop: &AtomicBool, ms: u64) -> bool {
    let step = std::time::Duration::from_millis(POLL_MS as u64);
    let mut left = ms;
    while !stop.load(Ordering::Relaxed) {
        if left == 0 {
            return true;
        }
        std::thread::sleep(step);
        left = left.saturating_sub(POLL_MS as u64);
    }
    false
}

/// A refusal here (the Local Network permission denied, a name clash)
/// leaves this phone unannounced; it is logged, and the player can still
/// join by code or QR code.
unsafe extern "C" fn on_registered(
    _: DNSServiceRef,
    _: DNSServiceFlags,
    error: DNSServiceErrorType,
    _: *const c_char,
    _: *const c_char,
    _: *const c_char,
    _: *mut c_void,
) {
    if error != NO_ERROR {
        eprintln!("clovece: Bonjour did not announce this phone: error {error}");
    }
}

unsafe extern "C" fn on_browsed(
    _: DNSServiceRef,
    flags: DNSServiceFlags,
    interface: u32,
    error: DNSServiceErrorType,
    name: *const c_char,
    regtype: *const c_char,
    domain: *const c_char,
    context: *mut c_void,
) {
    if error != NO_ERROR {
        eprintln!("clovece: Bonjour cannot look for phones: error {error}");
        return;
    }
    if name.is_null() {
        return;
    }
    // SAFETY: `context` is the worker's session (see `run`); the strings
    // are valid for the call.
    unsafe {
        let session = &mut *(context as *mut Session);
        let instance = CStr::from_ptr(name).to_string_lossy().into_owned();
        if flags & FLAGS_ADD == 0 {
            let (query, lost) = session.browsed.lost(&instance, interface);
            if let Some(query) = query {
                DNSServiceRefDeallocate(query);
            }
            if let Some(lost) = lost {
                (session.nearby)(lost);
            }
            return;
        }
        match session.browsed.found(&instance, interface) {
            Find::Skip => return,
            Find::Query { stop: Some(out) } => DNSServiceRefDeallocate(out),
            Find::Query { stop: None } => {}
        }
        let mut full = [0 as c_char; MAX_DOMAIN_NAME];
        let mut query = session.connection;
        let started = DNSServiceConstructFullName(full.as_mut_ptr(), name, regtype, domain)
            == NO_ERROR
            && DNSServiceQueryRecord(
                &mut query,
                FLAGS_SHARE_CONNECTION,
                interface,
                full.as_ptr(),
                TYPE_TXT,
                CLASS_IN,
                Some(on_txt),
                context,
            ) == NO_ERROR;
        session
            .browsed
            .querying(&instance, started.then_some(query));
    }
}

unsafe extern "C" fn on_txt(
    query: DNSServiceRef,
    flags: DNSServiceFlags,
    _: u32,
    error: DNSServiceErrorType,
    _: *const c_char,
    _: u16,
    _: u16,
    rdlen: u16,
    rdata: *const c_void,
    _: u32,
    context: *mut c_void,
) {
    if error != NO_ERROR || flags & FLAGS_ADD == 0 || rdata.is_null() {
        return;
    }
    // SAFETY: as in `on_browsed`; `rdata` holds `rdlen` bytes.
    unsafe {
        let session = &mut *(context as *mut Session);
        let record = std::slice::from_raw_parts(rdata.cast::<u8>(), usize::from(rdlen));
        let (older, found) = session.browsed.txt(&query, record);
        if let Some(older) = older {
            DNSServiceRefDeallocate(older);
        }
        if let Some(found) = found {
            (session.nearby)(found);
        }
    }
}
