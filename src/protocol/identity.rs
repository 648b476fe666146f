//! Players' keys and signatures. A player's identity is the ed25519 key of
//! their libp2p identity, so one key names them in the lobby, on the network
//! (as a `PeerId`) and in the log.

use std::fmt;

use libp2p_identity::{Keypair, PeerId, ed25519};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteArray;

/// Signed bytes start with this, so that a signature made for the game log
/// can never be passed off as one made for anything else the key signs
/// (libp2p's own handshakes use other prefixes).
const CONTEXT: &[u8] = b"clovece/sign\0";

/// An ed25519 public key, as its 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PublicKey([u8; 32]);

/// An ed25519 signature.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signature(ByteArray<64>);

/// A libp2p identity that is not an ed25519 key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the identity key must be an ed25519 key")]
pub struct NotEd25519;

/// Bytes that are not a valid ed25519 public key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a valid ed25519 public key")]
pub struct BadKey(pub PublicKey);

impl PublicKey {
    /// The public half of an ed25519 libp2p identity.
    pub fn of(keypair: &Keypair) -> Result<PublicKey, NotEd25519> {
        let ed = keypair
            .public()
            .try_into_ed25519()
            .map_err(|_| NotEd25519)?;
        Ok(PublicKey(ed.to_bytes()))
    }

    pub fn to_bytes(self) -> [u8; 32] {
        self.0
    }

    /// The libp2p peer id of this key.
    pub fn peer_id(self) -> Result<PeerId, BadKey> {
        Ok(libp2p_identity::PublicKey::from(self.verifier()?.0).to_peer_id())
    }

    /// The key parsed for checking signatures (done once per game, since
    /// parsing decompresses a curve point).
    pub(crate) fn verifier(self) -> Result<Verifier, BadKey> {
        ed25519::PublicKey::try_from_bytes(&self.0)
            .map(Verifier)
            .map_err(|_| BadKey(self))
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey(")?;
        for byte in &self.0[..4] {
            write!(f, "{byte:02x}")?;
        }
        write!(f, "…)")
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature(")?;
        for byte in &self.0[..4] {
            write!(f, "{byte:02x}")?;
        }
        write!(f, "…)")
    }
}

/// The bytes that are signed for `what`.
fn signed_bytes<T: Serialize>(what: &T) -> Vec<u8> {
    let mut bytes = CONTEXT.to_vec();
    bytes.extend(postcard::to_stdvec(what).expect("the log's types serialise to memory"));
    bytes
}

/// A player's private key, able to sign for their seat.
#[derive(Clone)]
pub struct Signer(ed25519::Keypair);

impl Signer {
    pub fn new(keypair: &Keypair) -> Result<Signer, NotEd25519> {
        keypair
            .clone()
            .try_into_ed25519()
            .map(Signer)
            .map_err(|_| NotEd25519)
    }

    pub fn public(&self) -> PublicKey {
        PublicKey(self.0.public().to_bytes())
    }

    pub(crate) fn sign<T: Serialize>(&self, what: &T) -> Signature {
        let bytes: [u8; 64] = self
            .0
            .sign(&signed_bytes(what))
            .try_into()
            .expect("an ed25519 signature has 64 bytes");
        Signature(ByteArray::new(bytes))
    }
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signer({:?})", self.public())
    }
}

#[cfg(test)]
impl Signer {
    /// `what` signed as a hostile signer may: with a nonce of its own
    /// choosing (from `salt`) rather than the one the key derives from the
    /// message. Another signature of the same, as valid as the first.
    pub(crate) fn sign_anew<T: Serialize>(&self, what: &T, salt: u8) -> Signature {
        use ed25519_dalek::hazmat::{ExpandedSecretKey, raw_sign};
        let seed: [u8; 32] = self.0.to_bytes()[..32].try_into().expect("32 bytes");
        let mut key = ExpandedSecretKey::from(&seed);
        key.hash_prefix = [salt; 32];
        let public = ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key();
        let signature = raw_sign::<sha2::Sha512>(&key, &signed_bytes(what), &public);
        Signature(ByteArray::new(signature.to_bytes()))
    }
}

/// A parsed public key that checks signatures.
#[derive(Clone, Debug)]
pub(crate) struct Verifier(ed25519::PublicKey);

impl Verifier {
    pub(crate) fn verify<T: Serialize>(&self, what: &T, signature: &Signature) -> bool {
        self.0.verify(&signed_bytes(what), signature.0.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_verify_only_for_what_was_signed() {
        let keypair = Keypair::ed25519_from_bytes([7u8; 32]).unwrap();
        let signer = Signer::new(&keypair).unwrap();
        let key = PublicKey::of(&keypair).unwrap();
        assert_eq!(signer.public(), key);
        assert_eq!(key.peer_id().unwrap(), keypair.public().to_peer_id());
        let signature = signer.sign(&(1u32, "roll"));
        let verifier = key.verifier().unwrap();
        assert!(verifier.verify(&(1u32, "roll"), &signature));
        assert!(!verifier.verify(&(2u32, "roll"), &signature));
    }

    #[test]
    fn a_signer_can_sign_the_same_anew() {
        let keypair = Keypair::ed25519_from_bytes([7u8; 32]).unwrap();
        let signer = Signer::new(&keypair).unwrap();
        let verifier = PublicKey::of(&keypair).unwrap().verifier().unwrap();
        let anew = signer.sign_anew(&(1u32, "roll"), 1);
        assert_ne!(anew, signer.sign(&(1u32, "roll")));
        assert!(verifier.verify(&(1u32, "roll"), &anew));
    }
}
