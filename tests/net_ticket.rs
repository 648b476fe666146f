//! A join ticket survives the trip through a QR image: encoded with
//! `qrcode`, rendered to pixels as a screen would show it, read back with
//! `rqrr` as a camera would, and parsed.

use clovece::net::{RoomId, RoomSecret, Ticket};
use libp2p::identity::Keypair;
use qrcode::{Color, QrCode};

/// Pixels per module and the quiet zone around the code, in modules.
const SCALE: usize = 4;
const QUIET: usize = 4;

/// The code as a greyscale image (0 black, 255 white).
fn render(qr: &QrCode) -> (usize, Vec<u8>) {
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

fn scan(side: usize, pixels: &[u8]) -> String {
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(side, side, |x, y| pixels[y * side + x]);
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code in the image");
    grids[0].decode().expect("the QR code decodes").1
}

#[test]
fn ticket_round_trips_through_a_qr_image() {
    let host = Keypair::generate_ed25519().public().to_peer_id();
    let addrs = [
        "/ip4/127.0.0.1/tcp/40001".parse().unwrap(),
        "/ip4/192.0.2.10/tcp/40001".parse().unwrap(),
        "/ip6/::1/tcp/40002".parse().unwrap(),
    ];
    for secret in [None, Some(RoomSecret::generate().unwrap())] {
        let ticket = Ticket::new(RoomId::generate().unwrap(), host, addrs.clone(), secret).unwrap();
        let (side, pixels) = render(&ticket.qr().unwrap());
        let text = scan(side, &pixels);
        assert_eq!(text, ticket.to_string());
        assert_eq!(text.parse::<Ticket>().unwrap(), ticket);
    }
}
