//! `clovece nearby`: starts a node and prints the libp2p nodes that mDNS
//! finds (clovece phones, and any other libp2p application's, which
//! shares its service name), with wall-clock timestamps, so that
//! discovery can be watched by a person and timed across processes
//! (docs/performance.md).

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use libp2p::identity::Keypair;
use libp2p::{Multiaddr, PeerId};

use super::node::{Config, Event, NetError, Node};

/// What `clovece nearby` does.
#[derive(Clone, Debug)]
pub struct Nearby {
    pub listen: Vec<Multiaddr>,
    /// Stop after this many phones were found.
    pub count: Option<usize>,
    /// Stop after this long.
    pub timeout: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum NearbyError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Microseconds since the Unix epoch: comparable between processes on one
/// machine.
fn unix_micros() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

/// Prints `id: <peer id>`, `started: <µs>` once listening with mDNS on, then
/// `found: <peer id> <µs>` for each node found, until `count` were found
/// or the time is up.
pub async fn run(
    keypair: Keypair,
    nearby: Nearby,
    out: &mut impl Write,
) -> Result<(), NearbyError> {
    let config = Config {
        listen: nearby.listen,
        mdns: true,
        ..Config::default()
    };
    let mut node = Node::start(keypair, config).await?;
    writeln!(out, "id: {}", node.peer_id())?;
    writeln!(out, "started: {}", unix_micros())?;
    out.flush()?;
    let mut found: Vec<PeerId> = Vec::new();
    let deadline = tokio::time::sleep(nearby.timeout);
    tokio::pin!(deadline);
    while nearby.count.is_none_or(|n| found.len() < n) {
        tokio::select! {
            () = &mut deadline => break,
            event = node.next() => {
                if let Event::Discovered(peer) = event
                    && !found.contains(&peer)
                {
                    found.push(peer);
                    writeln!(out, "found: {peer} {}", unix_micros())?;
                    out.flush()?;
                }
            }
        }
    }
    Ok(())
}
