//! The byte channel over real libp2p connections on loopback: messages
//! arrive in order and exactly once between two and four nodes, survive a
//! node's restart, and peers that send garbage, oversized frames or floods
//! are disconnected.

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use clovece::net::guard::Limits;
use clovece::net::wire::{MAX_BATCH_BYTES, MAX_MESSAGE};
use clovece::net::{Config, Event, NetError, Sighting};
use libp2p::PeerId;
use libp2p::identity::Keypair;
use support::{Handle, loopback, spawn, spawn_with};

fn numbered(from: u8, i: u32) -> Vec<u8> {
    let mut m = vec![from];
    m.extend(i.to_le_bytes());
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_exchange_messages_in_order() {
    let a = spawn(Keypair::generate_ed25519()).await;
    let mut b = spawn(Keypair::generate_ed25519()).await;
    // Each keeps the other, as the players of a game do: 2,000 messages
    // at once from a stranger would be a flood.
    a.keep(&b);
    b.keep(&a);
    arrive_in_order(&a, &mut b, 2000, 20).await;
    // The channel works both ways over the connection a made.
    let mut a = a;
    b.send(a.id, b"back".to_vec());
    assert_eq!(a.messages(1, 10).await, vec![(b.id, b"back".to_vec())]);
}

/// A peer the receiver does not keep is a stranger, with a budget of 200
/// messages a second: past it, it is made to wait, not banned (a player
/// may be a stranger for a moment to a phone that restarted), and every
/// message still arrives, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_past_its_budget_waits_and_every_message_arrives() {
    let a = spawn(Keypair::generate_ed25519()).await;
    let mut b = spawn(Keypair::generate_ed25519()).await;
    a.keep(&b);
    // The burst of 2,000, then 200 a second: by a time t at most
    // 2,000 + 200 t have come, so the 3,000 take at least 5 s (less a
    // little for the clocks' start).
    let start = std::time::Instant::now();
    arrive_in_order(&a, &mut b, 3000, 30).await;
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(4500),
        "{took:?}: not held back"
    );
}

/// Sends `count` numbered messages from `a` to `b`, which must get them
/// all, in order, within `secs` seconds of each other.
async fn arrive_in_order(a: &Handle, b: &mut Handle, count: u32, secs: u64) {
    for i in 0..count {
        a.send(b.id, numbered(0, i));
    }
    let got = b.messages(count as usize, secs).await;
    for (i, (from, bytes)) in got.into_iter().enumerate() {
        assert_eq!(from, a.id);
        assert_eq!(bytes, numbered(0, i as u32));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_nodes_in_a_full_mesh_each_see_every_stream_in_order() {
    let mut nodes: Vec<Handle> = Vec::new();
    for _ in 0..4 {
        nodes.push(spawn(Keypair::generate_ed25519()).await);
    }
    for i in 0..4 {
        for j in 0..4 {
            if i != j {
                nodes[i].keep(&nodes[j]);
            }
        }
    }
    const EACH: u32 = 300;
    let ids: Vec<PeerId> = nodes.iter().map(|n| n.id).collect();
    for (i, node) in nodes.iter().enumerate() {
        for k in 0..EACH {
            for (j, &to) in ids.iter().enumerate() {
                if i != j {
                    node.send(to, numbered(i as u8, k));
                }
            }
        }
    }
    for (j, node) in nodes.iter_mut().enumerate() {
        let got = node.messages(3 * EACH as usize, 30).await;
        let mut streams: BTreeMap<PeerId, Vec<Vec<u8>>> = BTreeMap::new();
        for (from, bytes) in got {
            streams.entry(from).or_default().push(bytes);
        }
        for (i, &from) in ids.iter().enumerate() {
            if i == j {
                assert!(!streams.contains_key(&from));
                continue;
            }
            let want: Vec<Vec<u8>> = (0..EACH).map(|k| numbered(i as u8, k)).collect();
            assert_eq!(streams[&from], want, "stream {i} -> {j}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_message_is_refused_before_sending() {
    let a = spawn(Keypair::generate_ed25519()).await;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let to = PeerId::random();
    a.run(move |n| {
        let _ = tx.send(n.send(to, vec![0; MAX_MESSAGE + 1]));
    });
    assert!(matches!(rx.await.unwrap(), Err(NetError::TooLarge(_))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_messages_reach_a_restarted_peer() {
    let mut a = spawn(Keypair::generate_ed25519()).await;
    let b_key = Keypair::generate_ed25519();
    let mut b = spawn(b_key.clone()).await;
    a.keep(&b);
    b.keep(&a);
    a.send(b.id, b"before".to_vec());
    assert_eq!(b.messages(1, 10).await[0].1, b"before");
    // (A receiver that dies before its acknowledgement is out gets the
    // message again after its restart: the log ignores duplicates.)
    a.acknowledged(b.id).await;
    let b_id = b.id;
    b.kill();
    a.wait(10, |e| matches!(e, Event::Disconnected(_)).then_some(()))
        .await;
    for i in 0..50 {
        a.send(b_id, numbered(1, i));
    }
    // The same player comes back on a new port and dials a.
    let mut b = spawn(b_key).await;
    b.keep(&a);
    let got = b.messages(50, 20).await;
    let want: Vec<Vec<u8>> = (0..50).map(|i| numbered(1, i)).collect();
    assert_eq!(got.into_iter().map(|(_, m)| m).collect::<Vec<_>>(), want);
}

mod raw {
    //! A peer that speaks the channel's protocol name but writes whatever
    //! bytes it is told to.

    use std::io;

    use async_trait::async_trait;
    use futures::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
    use libp2p::request_response::{self, Codec, ProtocolSupport};
    use libp2p::swarm::NetworkBehaviour;
    use libp2p::{StreamProtocol, Swarm, SwarmBuilder, noise, ping, tcp, yamux};

    #[derive(Clone, Default)]
    pub struct RawCodec;

    #[async_trait]
    impl Codec for RawCodec {
        type Protocol = StreamProtocol;
        type Request = Vec<u8>;
        type Response = Vec<u8>;

        async fn read_request<T: AsyncRead + Unpin + Send>(
            &mut self,
            _: &StreamProtocol,
            io: &mut T,
        ) -> io::Result<Vec<u8>> {
            read_all(io).await
        }
        async fn read_response<T: AsyncRead + Unpin + Send>(
            &mut self,
            _: &StreamProtocol,
            io: &mut T,
        ) -> io::Result<Vec<u8>> {
            read_all(io).await
        }
        async fn write_request<T: AsyncWrite + Unpin + Send>(
            &mut self,
            _: &StreamProtocol,
            io: &mut T,
            r: Vec<u8>,
        ) -> io::Result<()> {
            write_all(io, &r).await
        }
        async fn write_response<T: AsyncWrite + Unpin + Send>(
            &mut self,
            _: &StreamProtocol,
            io: &mut T,
            r: Vec<u8>,
        ) -> io::Result<()> {
            write_all(io, &r).await
        }
    }

    /// Requests and responses alike are the stream's bytes, up to 1 MiB.
    async fn read_all<T: AsyncRead + Unpin + Send>(io: &mut T) -> io::Result<Vec<u8>> {
        let mut v = Vec::new();
        io.take(1 << 20).read_to_end(&mut v).await?;
        Ok(v)
    }

    async fn write_all<T: AsyncWrite + Unpin + Send>(io: &mut T, bytes: &[u8]) -> io::Result<()> {
        io.write_all(bytes).await?;
        io.close().await
    }

    /// The game log's protocol, with any bytes, and ping (a node closes a
    /// connection that does not answer its pings).
    #[derive(NetworkBehaviour)]
    pub struct Raw {
        pub log: request_response::Behaviour<RawCodec>,
        pub ping: ping::Behaviour,
    }

    pub fn swarm() -> Swarm<Raw> {
        SwarmBuilder::with_new_identity()
            .with_tokio()
            .with_tcp(
                tcp::Config::default(),
                noise::Config::new,
                yamux::Config::default,
            )
            .unwrap()
            .with_behaviour(|_| Raw {
                log: request_response::Behaviour::with_codec(
                    RawCodec,
                    [(StreamProtocol::new("/clovece/log/1"), ProtocolSupport::Full)],
                    request_response::Config::default(),
                ),
                ping: ping::Behaviour::default(),
            })
            .unwrap()
            .with_swarm_config(|c| {
                c.with_idle_connection_timeout(std::time::Duration::from_secs(60))
            })
            .build()
    }
}

/// Connects a raw peer to `target` and sends it `frames` one after the
/// other (each once the previous is answered: libp2p itself drops streams
/// past the concurrency limit). Returns the raw peer's id and its task,
/// which ends when its connection closes.
fn raw_peer(target: &Handle, frames: Vec<Vec<u8>>) -> (PeerId, tokio::task::JoinHandle<()>) {
    use futures::StreamExt;
    let mut raw = raw::swarm();
    let raw_id = *raw.local_peer_id();
    raw.dial(target.addrs[0].clone()).unwrap();
    let driver = tokio::spawn(async move {
        use libp2p::request_response::{Event as Rr, Message};
        use libp2p::swarm::SwarmEvent;
        let mut frames = frames.into_iter();
        loop {
            let to = match raw.select_next_some().await {
                SwarmEvent::ConnectionEstablished { peer_id, .. } => peer_id,
                SwarmEvent::Behaviour(raw::RawEvent::Log(
                    Rr::Message {
                        peer,
                        message: Message::Response { .. },
                        ..
                    }
                    | Rr::OutboundFailure { peer, .. },
                )) => peer,
                SwarmEvent::ConnectionClosed {
                    num_established: 0, ..
                } => return,
                _ => continue,
            };
            if let Some(frame) = frames.next() {
                raw.behaviour_mut().log.send_request(&to, frame);
            }
        }
    });
    (raw_id, driver)
}

/// What a raw peer that takes nothing sees (see [`taking_nothing`]).
#[derive(Debug, PartialEq)]
enum Seen {
    Connected(std::time::Instant),
    Batch,
    Closed,
}

/// Connects a raw peer to `target` that answers every batch with an
/// acknowledgement taking nothing of it; its id, and what it sees as it
/// sees it.
fn taking_nothing(target: &Handle) -> (PeerId, tokio::sync::mpsc::UnboundedReceiver<Seen>) {
    use futures::StreamExt;
    use libp2p::request_response::{Event as Rr, Message};
    use libp2p::swarm::SwarmEvent;

    let mut raw = raw::swarm();
    let raw_id = *raw.local_peer_id();
    raw.dial(target.addrs[0].clone()).unwrap();
    let nothing = postcard::to_stdvec(&clovece::net::wire::Ack { next: 0 }).unwrap();
    let (tx, seen) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let what = match raw.select_next_some().await {
                SwarmEvent::ConnectionEstablished { .. } => {
                    Seen::Connected(std::time::Instant::now())
                }
                SwarmEvent::Behaviour(raw::RawEvent::Log(Rr::Message {
                    message: Message::Request { channel, .. },
                    ..
                })) => {
                    let _ = raw
                        .behaviour_mut()
                        .log
                        .send_response(channel, nothing.clone());
                    Seen::Batch
                }
                SwarmEvent::ConnectionClosed {
                    num_established: 0, ..
                } => Seen::Closed,
                _ => continue,
            };
            if tx.send(what).is_err() {
                return;
            }
        }
    });
    (raw_id, seen)
}

/// A peer that answers every batch by acknowledging nothing is sent it
/// again after a pause, not once per round trip.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_a_peer_does_not_take_is_sent_again_after_a_pause() {
    let target = spawn(Keypair::generate_ed25519()).await;
    let (raw_id, mut seen) = taking_nothing(&target);
    assert!(matches!(seen.recv().await, Some(Seen::Connected(_))));
    target.send(raw_id, b"take me".to_vec());
    let mut batch = async || loop {
        match seen.recv().await {
            Some(Seen::Batch) => return,
            Some(_) => {}
            None => panic!("the raw peer stopped"),
        }
    };
    // Sent again: a second batch comes (however loaded the machine).
    batch().await;
    batch().await;
    // Once per 250 ms at most, where it was once per round trip
    // (thousands): few more come in the next 3 s.
    let mut batches = 0;
    let _ = tokio::time::timeout(std::time::Duration::from_secs(3), async {
        loop {
            batch().await;
            batches += 1;
        }
    })
    .await;
    assert!(batches <= 20, "{batches} batches in 3 s");
}

/// Sends `frames` from a raw peer and returns the reason `target` gives for
/// banning it, once the raw peer is disconnected.
async fn banned_for(mut target: Handle, frames: Vec<Vec<u8>>) -> String {
    let (raw_id, driver) = raw_peer(&target, frames);
    let reason = target
        .wait(20, |e| match e {
            Event::Banned { peer, reason } if peer == raw_id => Some(reason),
            _ => None,
        })
        .await;
    tokio::time::timeout(std::time::Duration::from_secs(10), driver)
        .await
        .expect("the banned peer is disconnected")
        .unwrap();
    reason
}

/// A batch frame holding one message of `len` bytes, numbered `first`.
fn one_message_batch(first: u64, len: usize) -> Vec<u8> {
    let batch = clovece::net::wire::Batch {
        session: 1,
        first,
        messages: vec![serde_bytes::ByteBuf::from(vec![7u8; len])],
    };
    postcard::to_stdvec(&batch).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_at_the_limit_of_64_kib_and_its_envelopes_is_sent_and_delivered() {
    let a = spawn(Keypair::generate_ed25519()).await;
    let mut b = spawn(Keypair::generate_ed25519()).await;
    a.keep(&b);
    a.send(b.id, vec![7; MAX_MESSAGE]);
    assert_eq!(b.messages(1, 20).await, vec![(a.id, vec![7; MAX_MESSAGE])]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_received_message_at_the_limit_is_accepted() {
    let mut target = spawn(Keypair::generate_ed25519()).await;
    let (raw_id, _driver) = raw_peer(&target, vec![one_message_batch(0, MAX_MESSAGE)]);
    let got = target
        .wait(20, |e| match e {
            Event::Message { from, bytes } if from == raw_id => Some(Ok(bytes)),
            Event::Banned { reason, .. } => Some(Err(reason)),
            _ => None,
        })
        .await;
    assert_eq!(got, Ok(vec![7; MAX_MESSAGE]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_received_message_one_byte_over_the_limit_gets_its_peer_disconnected_with_the_reason() {
    let target = spawn(Keypair::generate_ed25519()).await;
    let reason = banned_for(target, vec![one_message_batch(0, MAX_MESSAGE + 1)]).await;
    assert!(
        reason.contains(&format!(
            "{} bytes, more than {MAX_MESSAGE}",
            MAX_MESSAGE + 1
        )),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_sending_peer_is_disconnected() {
    let target = spawn(Keypair::generate_ed25519()).await;
    let reason = banned_for(target, vec![vec![0xff; 40]]).await;
    assert!(reason.contains("garbage"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_numbered_past_the_last_sequence_number_gets_its_peer_disconnected() {
    // The receiver adds the count to the first number: this one would
    // overflow it.
    let target = spawn(Keypair::generate_ed25519()).await;
    let reason = banned_for(target, vec![one_message_batch(u64::MAX, 1)]).await;
    assert!(reason.contains("past the last sequence number"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_frame_is_cut_off_and_its_peer_disconnected() {
    let target = spawn(Keypair::generate_ed25519()).await;
    let reason = banned_for(target, vec![vec![0; MAX_BATCH_BYTES + 1]]).await;
    assert!(reason.contains("more than"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flooding_peer_is_disconnected() {
    use clovece::net::wire::Batch;
    use serde_bytes::ByteBuf;
    // Low limits, so that a debug build's crypto can outrun them.
    let limits = Limits {
        messages_per_sec: 500,
        messages_burst: 1000,
        ..Limits::default()
    };
    let target = spawn_with(
        Keypair::generate_ed25519(),
        Config {
            limits,
            ..loopback()
        },
    )
    .await;
    // Valid batches of 256 messages, one after the other.
    let frames = (0..50u64)
        .map(|i| {
            let batch = Batch {
                session: 1,
                first: i * 256,
                messages: vec![ByteBuf::new(); 256],
            };
            postcard::to_stdvec(&batch).unwrap()
        })
        .collect();
    let reason = banned_for(target, frames).await;
    assert!(reason.contains("flooding"), "{reason}");
}

/// A peer that stops answering (its process frozen, its Wi-Fi gone) keeps
/// the TCP connection open; a failed ping closes it, and the peer is
/// redialled until it answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_link_is_closed_and_redialled_when_it_returns() {
    let mut node = spawn(Keypair::generate_ed25519()).await;
    let peer = FreezablePeer::start();
    let (peer_id, addr) = (peer.id, peer.addr.clone());
    node.run(move |n| {
        n.add_addrs(peer_id, [addr]);
        n.keep(peer_id);
    });
    node.wait(10, |e| (e == Event::Connected(peer_id)).then_some(()))
        .await;
    let went_silent = std::time::Instant::now();
    let thaw = peer.freeze();
    node.wait(45, |e| (e == Event::Disconnected(peer_id)).then_some(()))
        .await;
    eprintln!("silent link closed after {:?}", went_silent.elapsed());
    // It comes back: the node's redial gets through.
    thaw.send(()).unwrap();
    node.wait(20, |e| (e == Event::Connected(peer_id)).then_some(()))
        .await;
}

/// A stranger of `room`: connected, and having said one thing (`n`).
async fn stranger(room: &Handle, n: usize) -> Handle {
    let (id, addrs) = (room.id, room.addrs.clone());
    let mut node = spawn(Keypair::generate_ed25519()).await;
    node.run(move |n| {
        n.add_addrs(id, addrs);
        n.dial(id);
    });
    node.wait(10, |e| (e == Event::Connected(id)).then_some(()))
        .await;
    node.send(id, numbered(0, n as u32));
    node
}

/// `count` strangers of `room`, one at a time (the room takes only a few
/// half-open connections at once), once the room has heard each.
async fn strangers(room: &mut Handle, count: usize) -> Vec<Handle> {
    let mut all = Vec::new();
    for n in 0..count {
        all.push(stranger(room, n).await);
    }
    room.messages(count, 30).await;
    all
}

/// Connections from peers a node does not keep take only some of its
/// slots: a device on the Wi-Fi that fills them with busy connections
/// cannot keep a player from coming back, nor the node from dialling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_take_only_their_share_of_the_slots() {
    use clovece::net::swarm::MAX_STRANGERS;

    let mut room = spawn(Keypair::generate_ed25519()).await;
    let strangers = strangers(&mut room, MAX_STRANGERS).await;
    // Every stranger busy: each has just taken something from the room.
    for s in &strangers {
        room.send(s.id, b"still looking?".to_vec());
    }
    for s in &strangers {
        room.acknowledged(s.id).await;
    }

    // One more is let in only to be let go.
    let mut extra = stranger(&room, MAX_STRANGERS).await;
    extra
        .wait(10, |e| (e == Event::Disconnected(room.id)).then_some(()))
        .await;
    // A player the room keeps still comes in, and a phone it dials itself
    // is reached.
    let mut player = spawn(Keypair::generate_ed25519()).await;
    room.keep(&player);
    room.send(player.id, b"your turn".to_vec());
    assert_eq!(
        player.messages(1, 10).await,
        vec![(room.id, b"your turn".to_vec())]
    );
    let mut invited = spawn(Keypair::generate_ed25519()).await;
    let (invited_id, invited_addrs) = (invited.id, invited.addrs.clone());
    room.run(move |n| {
        n.add_addrs(invited_id, invited_addrs);
        n.dial(invited_id);
    });
    room.send(invited_id, b"come and play".to_vec());
    assert_eq!(
        invited.messages(1, 10).await,
        vec![(room.id, b"come and play".to_vec())]
    );
}

/// Once the strangers' slots are full, the stranger quiet for longest makes
/// way for a new one, and every quiet stranger is let go in the end: phones
/// that looked up the room and went on do not keep the next one out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_strangers_make_way_and_are_let_go() {
    use clovece::net::node::{MAKE_WAY_AFTER, QUIET_LIMIT};
    use clovece::net::swarm::MAX_STRANGERS;

    let mut room = spawn(Keypair::generate_ed25519()).await;
    let said = std::time::Instant::now();
    let mut strangers = strangers(&mut room, MAX_STRANGERS).await;
    tokio::time::sleep(MAKE_WAY_AFTER + std::time::Duration::from_secs(1)).await;
    let newcomer = stranger(&room, MAX_STRANGERS).await;
    assert_eq!(
        room.messages(1, 10).await,
        vec![(newcomer.id, numbered(0, MAX_STRANGERS as u32))]
    );
    // The first to come, quiet for longest, made way for it: let go at
    // once, long before its quiet limit.
    strangers[0]
        .wait(5, |e| (e == Event::Disconnected(room.id)).then_some(()))
        .await;
    // Every other goes once quiet, the last to come too.
    for stranger in &mut strangers[1..] {
        let quiet = stranger
            .wait(QUIET_LIMIT.as_secs() + 10, |e| {
                (e == Event::Disconnected(room.id)).then(|| said.elapsed())
            })
            .await;
        assert!(quiet >= QUIET_LIMIT, "{quiet:?}");
    }
}

/// A stranger that takes nothing it is sent (it answers every batch, but
/// takes none of it) is let go once quiet too: the node's own resends to it
/// are no sign of life.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_that_takes_nothing_is_let_go_once_quiet() {
    use clovece::net::node::QUIET_LIMIT;

    let room = spawn(Keypair::generate_ed25519()).await;
    let (raw_id, mut seen) = taking_nothing(&room);
    let Some(Seen::Connected(connected)) = seen.recv().await else {
        panic!("not connected");
    };
    room.send(raw_id, b"here is your answer".to_vec());
    let closed = tokio::time::timeout(QUIET_LIMIT * 2, async {
        loop {
            match seen.recv().await {
                Some(Seen::Closed) => return,
                Some(_) => {}
                None => panic!("the raw peer stopped"),
            }
        }
    });
    closed.await.expect("let go");
    let quiet = connected.elapsed();
    assert!(quiet >= QUIET_LIMIT, "{quiet:?}");
}

/// A plain libp2p peer (ping only) on a runtime of its own, on a thread of
/// its own, so that it can be frozen whole as a stopped process is: not
/// polling its swarm is not enough, because libp2p runs each established
/// connection in a task of its own, which would go on answering pings.
struct FreezablePeer {
    id: PeerId,
    addr: libp2p::Multiaddr,
    freeze: tokio::sync::mpsc::UnboundedSender<std::sync::mpsc::Receiver<()>>,
}

impl FreezablePeer {
    fn start() -> FreezablePeer {
        use futures::StreamExt;
        use libp2p::swarm::SwarmEvent;
        use libp2p::{SwarmBuilder, noise, ping, tcp, yamux};

        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (freeze, mut frozen) =
            tokio::sync::mpsc::unbounded_channel::<std::sync::mpsc::Receiver<()>>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let mut swarm = SwarmBuilder::with_new_identity()
                    .with_tokio()
                    .with_tcp(
                        tcp::Config::default(),
                        noise::Config::new,
                        yamux::Config::default,
                    )
                    .unwrap()
                    .with_behaviour(|_| ping::Behaviour::new(ping::Config::new()))
                    .unwrap()
                    .with_swarm_config(|c| {
                        c.with_idle_connection_timeout(std::time::Duration::from_secs(60))
                    })
                    .build();
                swarm
                    .listen_on("/ip4/127.0.0.1/tcp/0".parse().unwrap())
                    .unwrap();
                let addr = loop {
                    if let SwarmEvent::NewListenAddr { address, .. } =
                        swarm.select_next_some().await
                    {
                        break address;
                    }
                };
                ready_tx.send((*swarm.local_peer_id(), addr)).unwrap();
                loop {
                    tokio::select! {
                        _ = swarm.select_next_some() => {}
                        thaw = frozen.recv() => match thaw {
                            // Blocking the runtime's only thread stops every
                            // task on it, the connections' too.
                            Some(thaw) => { let _ = thaw.recv(); }
                            None => break,
                        },
                    }
                }
            });
        });
        let (id, addr) = ready_rx.recv().unwrap();
        FreezablePeer { id, addr, freeze }
    }

    /// Freezes the peer until the returned sender is used (or dropped).
    fn freeze(&self) -> std::sync::mpsc::Sender<()> {
        let (thaw, thawed) = std::sync::mpsc::channel();
        self.freeze.send(thawed).unwrap();
        thaw
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_forgets_idle_peers_past_its_bound_and_keeps_the_ones_it_needs() {
    use clovece::net::Node;
    use clovece::net::node::MAX_PEERS;
    use libp2p::Multiaddr;

    let mut node = Node::start(Keypair::generate_ed25519(), loopback())
        .await
        .unwrap();
    // Nothing answers on loopback's discard port; the node is never polled
    // here, so the kept peer's dial stays pending.
    let addr: Multiaddr = "/ip4/127.0.0.1/tcp/9".parse().unwrap();
    let kept = PeerId::random();
    node.add_addrs(kept, [addr.clone()]);
    node.keep(kept);
    // Made-up peers, as a hostile device announces them by mDNS.
    let made_up: Vec<PeerId> = (0..10 * MAX_PEERS).map(|_| PeerId::random()).collect();
    for &peer in &made_up {
        node.add_addrs(peer, [addr.clone()]);
    }
    let known = made_up
        .iter()
        .filter(|&&p| !node.addrs(p).is_empty())
        .count();
    assert!(known <= MAX_PEERS, "{known} made-up peers still known");
    assert!(node.addrs(made_up[0]).is_empty(), "the first is forgotten");
    assert!(
        !node.addrs(*made_up.last().unwrap()).is_empty(),
        "the newest is known"
    );
    assert_eq!(
        node.addrs(kept),
        vec![addr],
        "a kept peer is never forgotten"
    );
    // Strangers that asked and left without taking their answers, under
    // a new identity each time: what is queued for them goes with them.
    let strangers: Vec<PeerId> = (0..10 * MAX_PEERS).map(|_| PeerId::random()).collect();
    for &peer in &strangers {
        node.send(peer, vec![7; 1000]).unwrap();
    }
    let queued = strangers
        .iter()
        .filter(|&&p| node.unacknowledged(p) > 0)
        .count();
    assert!(queued <= MAX_PEERS, "{queued} strangers' answers kept");
    assert_eq!(
        node.unacknowledged(strangers[0]),
        0,
        "the first is forgotten"
    );
    assert_eq!(node.unacknowledged(*strangers.last().unwrap()), 1);
    // Strangers banned under a new identity each time (a wrong identify
    // protocol is one handshake): their bans go with them too.
    let banned: Vec<PeerId> = (0..10 * MAX_PEERS).map(|_| PeerId::random()).collect();
    let nowhere: Multiaddr = "/ip4/127.0.0.1/tcp/9".parse().unwrap();
    for &peer in &banned {
        node.add_addrs(peer, [nowhere.clone()]);
        node.ban(peer, "speaks something else".into());
    }
    let known = banned
        .iter()
        .filter(|&&p| !node.addrs(p).is_empty())
        .count();
    assert!(known <= MAX_PEERS, "{known} banned strangers still known");
    assert!(node.addrs(banned[0]).is_empty(), "the first is forgotten");
}

/// A node that forgot a peer (idle, past its bound) and meets it again
/// starts a new channel to it. Reusing the old numbering under the same
/// session made the peer take the next messages for ones it had already
/// seen and drop them, acknowledged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_forgotten_and_met_again_gets_every_new_message() {
    use clovece::net::node::MAX_PEERS;
    use libp2p::Multiaddr;

    let mut a = spawn(Keypair::generate_ed25519()).await;
    let mut b = spawn(Keypair::generate_ed25519()).await;
    let (b_id, b_addrs) = (b.id, b.addrs.clone());
    let addrs = b_addrs.clone();
    a.run(move |n| {
        n.add_addrs(b_id, addrs);
        n.dial(b_id);
    });
    for i in 0..3 {
        a.send(b_id, numbered(0, i));
    }
    assert_eq!(b.messages(3, 10).await.len(), 3);
    a.acknowledged(b_id).await;
    a.run(|n| n.disconnect_all());
    a.wait(10, |e| (e == Event::Disconnected(b_id)).then_some(()))
        .await;
    // Made-up peers push the idle b out of a's memory.
    let (tx, rx) = tokio::sync::oneshot::channel();
    a.run(move |n| {
        let addr: Multiaddr = "/ip4/127.0.0.1/tcp/9".parse().unwrap();
        for _ in 0..2 * MAX_PEERS {
            n.add_addrs(PeerId::random(), [addr.clone()]);
        }
        let _ = tx.send(n.addrs(b_id).is_empty());
    });
    assert!(rx.await.unwrap(), "b is forgotten");
    a.run(move |n| {
        n.add_addrs(b_id, b_addrs);
        n.dial(b_id);
    });
    for i in 3..5 {
        a.send(b_id, numbered(0, i));
    }
    let got = b.messages(2, 10).await;
    assert_eq!(got, [(a.id, numbered(0, 3)), (a.id, numbered(0, 4))]);
}

/// Anyone on the Wi-Fi can announce any phone gone (an mDNS answer that
/// lives 0 s). A phone connected over a link its key secured is lost only
/// once that link is down, not on such a word.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connected_peer_said_to_be_gone_is_lost_only_when_its_connection_is() {
    let mut a = spawn(Keypair::generate_ed25519()).await;
    let b = spawn(Keypair::generate_ed25519()).await;
    let (sightings, heard) = tokio::sync::mpsc::unbounded_channel();
    a.run(move |n| n.hear(heard));
    a.keep(&b);
    let id = b.id;
    a.wait(10, |e| (e == Event::Connected(id)).then_some(()))
        .await;
    sightings.send(Sighting::Lost(id)).unwrap();
    let quiet = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
    while let Ok(Some(event)) = tokio::time::timeout_at(quiet, a.events.recv()).await {
        assert_ne!(event, Event::Expired(id), "lost while connected");
    }
    b.kill();
    let after = a
        .wait(10, |e| match e {
            Event::Disconnected(p) | Event::Expired(p) if p == id => Some(e),
            _ => None,
        })
        .await;
    assert_eq!(after, Event::Disconnected(id));
    a.wait(1, |e| (e == Event::Expired(id)).then_some(())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_gives_up_what_it_queued_for_a_phone_but_not_what_the_node_keeps_sending() {
    use clovece::net::Node;

    let mut node = Node::start(Keypair::generate_ed25519(), loopback())
        .await
        .unwrap();
    // Neither answers: loopback's discard port; the node is not polled.
    let addr: libp2p::Multiaddr = "/ip4/127.0.0.1/tcp/9".parse().unwrap();
    let (asked, declined) = (PeerId::random(), PeerId::random());
    for peer in [asked, declined] {
        node.add_addrs(peer, [addr.clone()]);
        node.send(peer, b"queued".to_vec()).unwrap();
    }
    // A decline of an invitation, sent where the nearby list runs.
    node.keep(declined);
    for peer in [asked, declined] {
        node.give_up(peer);
    }
    assert_eq!(node.unacknowledged(asked), 0, "the list's question goes");
    assert_eq!(node.unacknowledged(declined), 1, "the decline stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_phones_a_heard_discovery_names_are_bounded_and_a_flood_keeps_the_kept_ones() {
    use clovece::net::seen::MAX_PHONES;
    use clovece::net::{Event, Node, Sighting};

    let mut node = Node::start(Keypair::generate_ed25519(), loopback())
        .await
        .unwrap();
    let (found, sightings) = tokio::sync::mpsc::unbounded_channel();
    node.hear(sightings);
    let at = |peer: PeerId| -> libp2p::Multiaddr {
        format!("/ip4/127.0.0.1/tcp/9/p2p/{peer}").parse().unwrap()
    };
    let sighting = |peer| Sighting::Found {
        peer,
        addrs: vec![at(peer)],
    };
    // A phone the node keeps (a decline on its way), then a flood.
    let kept = PeerId::random();
    node.keep(kept);
    let flood: Vec<PeerId> = (0..4 * MAX_PHONES).map(|_| PeerId::random()).collect();
    for &peer in std::iter::once(&kept).chain(&flood) {
        found.send(sighting(peer)).unwrap();
    }
    let last = *flood.last().unwrap();
    while node.next().await != Event::Discovered(last) {}
    let nearby = node.nearby();
    assert_eq!(nearby.len(), MAX_PHONES);
    assert_eq!(nearby[0], kept, "a flood does not push out a kept phone");
    assert_eq!(nearby.last(), Some(&last), "the newest is named");
    // Lost while not connected: no longer named.
    found.send(Sighting::Lost(last)).unwrap();
    while node.next().await != Event::Expired(last) {}
    assert!(!node.nearby().contains(&last));
}
