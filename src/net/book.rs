//! The address book saved beside a game: where this phone listened, where
//! the other players' phones were last reached, and every player's
//! nickname. A restarted phone reloads its game from
//! [`crate::protocol::Store`], listens again where it did (so the others'
//! redials find it) and dials the others at these addresses; mDNS supplies
//! new ones if they moved. The nicknames, said only at the setup, let a
//! resumed game show and record its players by name.
//!
//! The file is written whole by write-to-temporary, sync and rename, so a
//! crash leaves the old book or the new one. A missing or damaged book is
//! not fatal: the game resumes and waits for mDNS or for the others to dial
//! (a damaged one is set aside first, not written over).

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use libp2p::{Multiaddr, PeerId};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;
use tracing::warn;

const FILE: &str = "peers";
/// Where a book that cannot be read is set aside.
const DAMAGED: &str = "peers.damaged";
/// A book lists at most 4 phones with 16 addresses each; far below this.
const MAX_BYTES: usize = 64 * 1024;

/// Where this phone and the other players' phones can be reached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    /// The addresses this phone listened on.
    pub me: Vec<Multiaddr>,
    /// Every other player's peer id and addresses.
    pub peers: Vec<(PeerId, Vec<Multiaddr>)>,
    /// Every player's peer id and nickname, this player's too, in the
    /// setup's order: the host first (none in a book saved before
    /// nicknames were kept).
    pub names: Vec<(PeerId, String)>,
}

/// The book as bytes on disk: the addresses, then the nicknames, which a
/// book saved before they were kept ends without.
#[derive(Serialize, Deserialize)]
struct Saved {
    me: Vec<ByteBuf>,
    peers: Vec<(ByteBuf, Vec<ByteBuf>)>,
}

type SavedNames = Vec<(ByteBuf, String)>;

#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{}: more than {MAX_BYTES} bytes", .path.display())]
    TooLarge { path: PathBuf },
    #[error("{}: {source}", .path.display())]
    Malformed {
        path: PathBuf,
        source: postcard::Error,
    },
    #[error("{}: a peer id or address does not decode", .path.display())]
    BadAddress { path: PathBuf },
}

fn addrs(list: &[Multiaddr]) -> Vec<ByteBuf> {
    list.iter().map(|a| ByteBuf::from(a.to_vec())).collect()
}

fn parse_addrs(list: Vec<ByteBuf>) -> Option<Vec<Multiaddr>> {
    list.into_iter()
        .map(|a| Multiaddr::try_from(a.into_vec()).ok())
        .collect()
}

impl Book {
    /// Saves the book in the game folder `dir`, replacing the old one.
    pub fn save(&self, dir: &Path) -> Result<(), BookError> {
        let saved = Saved {
            me: addrs(&self.me),
            peers: self
                .peers
                .iter()
                .map(|(id, a)| (ByteBuf::from(id.to_bytes()), addrs(a)))
                .collect(),
        };
        let names: SavedNames = self
            .names
            .iter()
            .map(|(id, name)| (ByteBuf::from(id.to_bytes()), name.clone()))
            .collect();
        let mut bytes = postcard::to_stdvec(&saved).expect("a book serialises to memory");
        bytes.extend(postcard::to_stdvec(&names).expect("names serialise to memory"));
        let path = dir.join(FILE);
        crate::durable::replace(&path, |file| file.write_all(&bytes))
            .map_err(|source| BookError::Io { path, source })
    }

    /// The players' nicknames kept in the book in `dir`; none without it
    /// (a game saved before nicknames were kept, or a damaged book), and
    /// the players show as their colours.
    pub fn names_in(dir: &Path) -> Vec<(PeerId, String)> {
        Book::load(dir).map(|book| book.names).unwrap_or_default()
    }

    /// The book of the game folder `dir` for a game that resumes, or none.
    /// A book that does not read (damaged, or one the disk would not give
    /// now) is first renamed to `peers.damaged`, so that the one the game
    /// saves next does not take the nicknames it may still hold.
    pub fn resumed(dir: &Path) -> Book {
        Book::load(dir).unwrap_or_else(|e| {
            warn!("no saved addresses; looking for the other players by mDNS: {e}");
            let missing = matches!(&e, BookError::Io { source, .. }
                if source.kind() == io::ErrorKind::NotFound);
            if !missing && let Err(e) = fs::rename(dir.join(FILE), dir.join(DAMAGED)) {
                warn!("cannot set the damaged address book aside: {e}");
            }
            Book::default()
        })
    }

    /// Loads the book of the game folder `dir`.
    pub fn load(dir: &Path) -> Result<Book, BookError> {
        let path = dir.join(FILE);
        let io = |source| BookError::Io {
            path: path.clone(),
            source,
        };
        // Read no further than a book can be.
        let mut bytes = Vec::new();
        fs::File::open(&path)
            .and_then(|file| file.take(MAX_BYTES as u64 + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        if bytes.len() > MAX_BYTES {
            return Err(BookError::TooLarge { path });
        }
        let malformed = |source| BookError::Malformed {
            path: path.clone(),
            source,
        };
        let (saved, rest): (Saved, _) = postcard::take_from_bytes(&bytes).map_err(malformed)?;
        let names: SavedNames = match rest {
            [] => Vec::new(),
            rest => match postcard::take_from_bytes(rest).map_err(malformed)? {
                (names, []) => names,
                _ => return Err(malformed(postcard::Error::DeserializeUnexpectedEnd)),
            },
        };
        let bad = || BookError::BadAddress { path: path.clone() };
        let me = parse_addrs(saved.me).ok_or_else(bad)?;
        let peers = saved
            .peers
            .into_iter()
            .map(|(id, a)| Some((PeerId::from_bytes(&id).ok()?, parse_addrs(a)?)))
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        // The file may have been tampered with: nicknames are cut as the
        // setup cuts them.
        let names = names
            .into_iter()
            .map(|(id, name)| Some((PeerId::from_bytes(&id).ok()?, super::setup::nickname(&name))))
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        Ok(Book { me, peers, names })
    }

    /// The addresses saved for `peer`.
    pub fn addrs(&self, peer: PeerId) -> &[Multiaddr] {
        self.peers
            .iter()
            .find(|(id, _)| *id == peer)
            .map_or(&[], |(_, a)| a.as_slice())
    }
}

/// `peer`'s nickname in `names` (a book's, or a finished game's), empty
/// when it is not known.
pub fn nickname_of(names: &[(PeerId, String)], peer: PeerId) -> String {
    names
        .iter()
        .find(|(p, _)| *p == peer)
        .map(|(_, name)| name.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use libp2p::identity::Keypair;
    use proptest::prelude::*;

    fn book() -> Book {
        let peer = Keypair::generate_ed25519().public().to_peer_id();
        let me = Keypair::generate_ed25519().public().to_peer_id();
        Book {
            me: vec!["/ip4/127.0.0.1/tcp/4001".parse().unwrap()],
            peers: vec![(
                peer,
                vec![
                    "/ip4/127.0.0.1/tcp/4002".parse().unwrap(),
                    "/ip4/192.0.2.7/tcp/4002".parse().unwrap(),
                ],
            )],
            names: vec![(me, "Hana".into()), (peer, "Ivo".into())],
        }
    }

    #[test]
    fn book_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let b = book();
        b.save(dir.path()).unwrap();
        assert_eq!(Book::load(dir.path()).unwrap(), b);
        assert_eq!(b.addrs(b.peers[0].0), b.peers[0].1.as_slice());
    }

    #[test]
    fn a_book_saved_before_nicknames_were_kept_loads_without_them() {
        let dir = tempfile::tempdir().unwrap();
        let b = book();
        let old = Saved {
            me: addrs(&b.me),
            peers: vec![(ByteBuf::from(b.peers[0].0.to_bytes()), addrs(&b.peers[0].1))],
        };
        fs::write(dir.path().join(FILE), postcard::to_stdvec(&old).unwrap()).unwrap();
        let loaded = Book::load(dir.path()).unwrap();
        assert_eq!(loaded.peers, b.peers);
        assert!(loaded.names.is_empty());
    }

    #[test]
    fn a_saved_nickname_is_cut_as_the_setup_cuts_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = book();
        b.names[0].1 = format!("Ha\u{7}na{}", "x".repeat(100));
        b.save(dir.path()).unwrap();
        let name = &Book::load(dir.path()).unwrap().names[0].1;
        assert!(name.starts_with("Hana"), "{name:?}");
        assert_eq!(name.chars().count(), super::super::setup::MAX_NAME);
    }

    #[test]
    fn a_missing_book_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let e = Book::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("peers"), "{e}");
    }

    #[test]
    fn a_damaged_book_is_set_aside_before_a_resumed_game_saves_its_own() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Book::resumed(dir.path()), Book::default());
        assert!(!dir.path().join(DAMAGED).exists(), "nothing to set aside");

        book().save(dir.path()).unwrap();
        let path = dir.path().join(FILE);
        let mut damaged = fs::read(&path).unwrap();
        damaged.push(0);
        fs::write(&path, &damaged).unwrap();
        assert_eq!(Book::resumed(dir.path()), Book::default());
        assert_eq!(fs::read(dir.path().join(DAMAGED)).unwrap(), damaged);
        assert!(!path.exists());

        // One the disk does not give (here a folder in its place: reading
        // it fails as an error of the disk would) is set aside too.
        fs::remove_file(dir.path().join(DAMAGED)).unwrap();
        fs::create_dir(&path).unwrap();
        assert_eq!(Book::resumed(dir.path()), Book::default());
        assert!(dir.path().join(DAMAGED).is_dir());
        assert!(!path.exists());
    }

    #[test]
    fn a_book_larger_than_a_book_can_be_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(FILE), vec![0; MAX_BYTES + 1]).unwrap();
        assert!(matches!(
            Book::load(dir.path()),
            Err(BookError::TooLarge { .. })
        ));
    }

    #[test]
    fn a_book_with_trailing_bytes_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        book().save(dir.path()).unwrap();
        let path = dir.path().join(FILE);
        let mut bytes = fs::read(&path).unwrap();
        bytes.push(0);
        fs::write(&path, bytes).unwrap();
        assert!(matches!(
            Book::load(dir.path()),
            Err(BookError::Malformed { .. })
        ));
    }

    proptest! {
        #[test]
        fn loading_any_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let dir = tempfile::tempdir().unwrap();
            fs::write(dir.path().join(FILE), bytes).unwrap();
            let _ = Book::load(dir.path());
        }
    }
}
