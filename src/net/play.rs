//! Playing a started game over the node: the game log's messages travel
//! in [`Envelope::Log`], the phone ticks once a second, the presence watch
//! notices silent phones, and this player's actions come from the
//! [`Front`].

use std::time::Duration;

use libp2p::PeerId;
use serde_bytes::ByteBuf;
use tokio::time::{Instant, sleep_until};
use tracing::warn;

use super::front::{Action, Front, Progress};
use super::game::{GameError, Peer, seated_players};
use super::node::{Event, Node};
use super::room;
use super::setup::{Envelope, send};
use crate::protocol::presence::Millis;
use crate::protocol::state::Control;
use crate::protocol::{Digest, Due, End, Message, Phone, PhoneError, Transport, Watch};
use crate::rules::Colour;

/// How often the phone tells the others where its log stands.
const TICK: Duration = Duration::from_secs(1);

/// The game log's [`Transport`] over the node: colours are the peers the
/// header's keys name.
struct Wire<'a> {
    node: &'a mut Node,
    peers: [Option<PeerId>; 4],
    me: Colour,
}

impl Transport for Wire<'_> {
    fn send(&mut self, to: Colour, message: &[u8]) {
        if let Some(peer) = self.peers[to.index()] {
            send(
                self.node,
                peer,
                &Envelope::Log(ByteBuf::from(message.to_vec())),
            );
        }
    }

    fn broadcast(&mut self, message: &[u8]) {
        for colour in Colour::ALL {
            if colour != self.me {
                self.send(colour, message);
            }
        }
    }

    fn backlog(&self, to: Colour) -> usize {
        self.peers[to.index()].map_or(0, |peer| self.node.unacknowledged(peer))
    }
}

/// Tells the front `away: <colour>` when the computer takes a player's
/// seat because their phone was gone, and `back: <colour>` when they take
/// it back.
fn report_seats(
    phone: &Phone,
    controls: &mut [Option<Control>; 4],
    front: &mut dyn Front,
) -> std::io::Result<()> {
    let state = phone.log().state();
    for colour in Colour::ALL {
        let now = state.control(colour);
        match (controls[colour.index()], now) {
            (Some(Control::Player), Some(Control::Absent)) => front.show(Progress::Away(colour))?,
            (Some(Control::Absent), Some(Control::Player)) => front.show(Progress::Back(colour))?,
            _ => {}
        }
        controls[colour.index()] = now;
    }
    Ok(())
}

/// Goes on after this phone's own work failed: an entry of its own that
/// cannot be saved now (a full disk) was taken back out of the log and not
/// sent, and the phone makes it again as it goes on, once the disk takes
/// it (docs/protocol.md, "Persistence"); ending the game here would have
/// the others play on without this player.
fn carry_on(done: Result<(), PhoneError>) {
    if let Err(e) = done {
        warn!("cannot go on with the game for now: {e}");
    }
}

/// Plays the game to its end (or this player's leave), shows the result
/// and lingers until every peer holds the final entry. Shows this player's
/// seat, every seat's nickname (`names`, by colour) and whether this phone
/// `hosted` the room first; takes what the players' phones sent before it
/// played (`early`: a guest's, heard before its start) first.
pub(super) async fn play(
    node: &mut Node,
    mut phone: Phone,
    peer: &Peer,
    (names, hosted): (&[String; 4], bool),
    early: Vec<(PeerId, Vec<u8>)>,
    front: &mut dyn Front,
) -> Result<Phone, GameError> {
    let header = phone.log().header().header.clone();
    let mut peers = [None; 4];
    for (colour, id) in seated_players(&header).filter(|&(c, _)| c != phone.seat()) {
        peers[colour.index()] = Some(id);
    }
    let colour_of = |id: PeerId| {
        Colour::ALL
            .into_iter()
            .find(|c| peers[c.index()] == Some(id))
    };
    let started = Instant::now();
    let now = || Millis::try_from(started.elapsed().as_millis()).unwrap_or(Millis::MAX);
    let mut watch = Watch::new(&header, now());
    let mut heads: [Option<Digest>; 4] = [None; 4];
    let mut tick = tokio::time::interval(TICK);
    // When to act next, for which head, and the last head acted on.
    let mut act: Option<(Instant, Digest)> = None;
    let mut acted: Option<Digest> = None;
    // The head whose roll or move the front was asked for.
    let mut asked: Option<Digest> = None;
    let mut finished: Option<Instant> = None;
    // When this phone lets go of its reveal for the computer roll it
    // holds, and which roll.
    let mut pacing: Option<(Instant, u32)> = None;
    if !peer.computer_pace.is_zero() {
        phone.pace_computer();
    }
    let me = phone.seat();
    // This player's own actions so far, and whether they chose to leave
    // (in this run, or before a restart: the log says so).
    let mut actions: u32 = 0;
    let mut left = phone.log().has_left(me);
    let mut controls = [None; 4];
    // The head the front was last shown.
    let mut shown: Option<Digest> = None;
    front.show(Progress::Seat { me, names, hosted })?;
    report_seats(&phone, &mut controls, front)?;
    carry_on(phone.start(&mut Wire { node, peers, me }));
    for (from, bytes) in early {
        if let Some(colour) = colour_of(from) {
            watch.heard(colour, now());
            take(
                &mut phone,
                &mut Wire { node, peers, me },
                &mut heads,
                (colour, from),
                &bytes,
            );
        }
    }
    if left {
        // Should a certificate take the leave out, it is signed again.
        carry_on(phone.leave(&mut Wire { node, peers, me }));
    }
    loop {
        let head = phone.log().head();
        report_seats(&phone, &mut controls, front)?;
        if shown != Some(head) {
            shown = Some(head);
            front.show(Progress::Log(&phone))?;
        }
        if finished.is_none()
            && peer.drop_after.is_some_and(|n| actions >= n)
            && let Due::Move { seat, .. } = phone.log().due()
            && seat != me
            && phone
                .log()
                .state()
                .game()
                .is_some_and(|g| g.seats().after(seat) != me)
        {
            front.show(Progress::Dropped(head))?;
            return Ok(phone);
        }
        if finished.is_none()
            && let Some(result) = phone.log().result()
        {
            let winner = match result.end {
                End::Won(colour) => Some(colour),
                End::Abandoned | End::OutOfDice => None,
            };
            front.show(Progress::Result { winner, head })?;
            // The result shown stays: lingering, the phone takes nothing
            // that would set the game back (a loser's late entry for an
            // old place, docs/protocol.md, "Undo the end").
            phone.keep_end();
            // Tell the others at once that this phone holds the end.
            carry_on(phone.tick(&mut Wire { node, peers, me }));
            finished = Some(Instant::now());
        }
        if left && finished.is_none() && phone.log().has_left(me) {
            front.show(Progress::Left(head))?;
            finished = Some(Instant::now());
        }
        // The game is over for this phone and every other phone holds its
        // end (or this player left, and waits for no one): nothing is left
        // to tell them, so the tick stops telling them this phone's head
        // (each new status would wait for an acknowledgement again, so the
        // outbox was never empty when looked at), and the phone goes once
        // what it sent is taken.
        //
        // A leave needs only the phones still here to hold it, on its
        // branch: a certificate the others complete at its place (a player
        // voted back or gone meanwhile) outranks it, and this phone, still
        // here, signs it again in the turn that is then due. (Looked for
        // only once the game is over for this phone: it is a walk of the
        // whole log.)
        let told = finished.is_some() && {
            let log = phone.log();
            let leave = if left { log.leave(me) } else { None };
            let ended = log.result().is_some();
            Colour::ALL
                .into_iter()
                .filter_map(|c| peers[c.index()].map(|p| (c, p)))
                .all(|(c, p)| match leave {
                    Some(leave) => {
                        !node.is_connected(p)
                            || heads[c.index()].is_some_and(|h| log.hashes()[leave..].contains(&h))
                    }
                    // Taken out: signed again in this player's turn.
                    None if left && !ended => false,
                    // The end (maybe before the leave could be signed).
                    None => heads[c.index()] == Some(head),
                })
        };
        if let Some(at) = finished {
            // What this phone sent is taken, or its peer, holding the end
            // already, has gone (what is left for it is this phone's head,
            // which it no longer waits for).
            let sent = Colour::ALL.into_iter().all(|c| {
                peers[c.index()].is_none_or(|p| {
                    node.unacknowledged(p) == 0
                        || (heads[c.index()] == Some(head) && !node.is_connected(p))
                })
            }) && !node.answering();
            if (told && sent) || at.elapsed() >= peer.linger {
                node.disconnect_all();
                return Ok(phone);
            }
        }
        // Whether this player still acts: not once the game is over for
        // them, nor while their leave waits for their turn.
        let acting = finished.is_none() && !left;
        if acting && phone.waiting().mine && act.is_none_or(|(_, h)| h != head) {
            act = Some((Instant::now() + peer.pace, head));
        }
        let due = act.filter(|&(_, h)| h == head && acted != Some(head) && acting);
        pacing = phone.held().map(|roll| match pacing {
            Some((at, held)) if held == roll => (at, roll),
            _ => (Instant::now() + peer.computer_pace, roll),
        });
        // What this player does now, if anything.
        let action = tokio::select! {
            event = node.next() => {
                if let Event::Message { from, bytes } = event {
                    match colour_of(from) {
                        Some(colour) => {
                            watch.heard(colour, now());
                            take(&mut phone, &mut Wire { node, peers, me }, &mut heads, (colour, from), &bytes);
                        }
                        None => room::tell_started(node, from, &bytes),
                    }
                }
                None
            }
            // Once `told`, the tick only wakes the loop to look again
            // whether what this phone sent is taken (an acknowledgement is
            // no event), or its linger is over.
            _ = tick.tick() => {
                if !told {
                    let mut wire = Wire { node, peers, me };
                    carry_on(phone.tick(&mut wire));
                    let seen = watch.observe(now(), &phone);
                    front.show(Progress::Silent(&watch.silent(now(), phone.waiting())))?;
                    carry_on(phone.observe(seen, &mut wire));
                }
                None
            }
            () = sleep_until(pacing.map_or(Instant::now(), |(at, _)| at)), if pacing.is_some() => {
                if let Some((_, roll)) = pacing.take() {
                    carry_on(phone.release(roll, &mut Wire { node, peers, me }));
                }
                None
            }
            action = front.input(asked == Some(head)), if acting => action?,
            () = sleep_until(due.map_or(Instant::now(), |(at, _)| at)), if due.is_some() => {
                acted = Some(head);
                let action = front.due(&phone)?;
                if action.is_none() {
                    asked = Some(head);
                }
                action
            }
        };
        let Some(action) = action else { continue };
        let mut wire = Wire { node, peers, me };
        let len = phone.log().len();
        let done = match action {
            // Before the start only.
            Action::Ready(_) => continue,
            Action::Roll => {
                front.show(Progress::Acting { action, len })?;
                phone.roll(&mut wire)
            }
            Action::Move(mv) => {
                front.show(Progress::Acting { action, len })?;
                phone.play(mv, &mut wire)
            }
            Action::Leave => Ok(()),
            // The room was left as the game started: stopped, not left
            // (see the action), the game stays saved.
            Action::LeaveRoom => return Err(GameError::LeftRoom),
        };
        match done {
            Ok(()) => actions += 1,
            Err(e) => warn!("cannot act: {e}"),
        }
        if !left && (action == Action::Leave || peer.leave_after.is_some_and(|n| actions >= n)) {
            // Signed in this player's next turn; the loop goes on until then.
            carry_on(phone.leave(&mut wire));
            left = true;
        }
    }
}

/// Takes what the phone of `colour` (`from`) sent, if it is a message of
/// the game's log: the head its status names goes into `heads`.
fn take(
    phone: &mut Phone,
    wire: &mut Wire,
    heads: &mut [Option<Digest>; 4],
    (colour, from): (Colour, PeerId),
    bytes: &[u8],
) {
    let Some(Envelope::Log(message)) = Envelope::unframe(bytes) else {
        return;
    };
    if let Ok(Message::Status { head, .. }) = Message::decode(&message) {
        heads[colour.index()] = Some(head);
    }
    match phone.receive(colour, &message, wire) {
        // Checking it may have cost a signature or a computer's move: a
        // phone that sends what no honest phone would is not heard again.
        Err(e) if e.blames_sender() => wire.node.ban(from, format!("{colour}: {e}")),
        Err(e) => warn!(%colour, "refused a message: {e}"),
        Ok(()) => {}
    }
}
