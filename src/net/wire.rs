//! The byte channel's wire format: the request-response protocol
//! `/clovece/log/1`, where a request is a [`Batch`] of messages with
//! sequence numbers and the answer is an [`Ack`]. Both are postcard, read
//! with a hard size bound before anything is decoded, and must be exactly
//! one value. A request that is too long, malformed or has bytes left over
//! is refused, which gets the sending peer disconnected; such an answer
//! fails its batch, which is sent again, as after an answer that
//! acknowledges nothing.
//!
//! A refused request is read as a [`Request::Refused`] value rather than an
//! error, because libp2p's request-response drops errors from reading a
//! request without telling the node who sent it. A request that ends
//! before its batch does is no refusal but a failed read: yamux reads a
//! stream reset (its sender's app killed, its Wi-Fi gone mid-batch) as the
//! stream's end, and an honest phone must not be taken for one sending
//! garbage, and shut out, for that.

use std::io;

use async_trait::async_trait;
use futures::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use libp2p::StreamProtocol;
use libp2p::request_response::Codec;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// The protocol's name, negotiated on each stream.
pub const PROTOCOL: StreamProtocol = StreamProtocol::new("/clovece/log/1");

/// What the two envelopes around a game-log message cost at most: the
/// lobby's `Frame::Game` and the headless game's `Envelope::Log`, a
/// one-byte tag and a length varint (3 bytes up to 2 MiB) each.
pub const ENVELOPE: usize = 16;

/// The largest message the channel carries: the game log's own bound
/// (64 KiB, [`crate::protocol::wire::MAX_MESSAGE`]) plus its envelopes, so
/// that every message the game log accepts fits through.
pub const MAX_MESSAGE: usize = crate::protocol::wire::MAX_MESSAGE + ENVELOPE;

/// The most messages one batch carries.
pub const MAX_BATCH_MESSAGES: usize = 256;

/// The largest batch on the wire: enough for a few full-size messages;
/// smaller messages are packed up to it.
pub const MAX_BATCH_BYTES: usize = 4 * MAX_MESSAGE;

/// The largest acknowledgement on the wire (two varints).
const MAX_ACK_BYTES: usize = 32;

/// Messages from one sender, in order: `messages[i]` has sequence number
/// `first + i`. Sequence numbers count from 0 in each `session` (a random
/// number a node draws when it starts), so a restarted sender is told apart
/// from a repeated batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    pub session: u64,
    pub first: u64,
    pub messages: Vec<ByteBuf>,
}

/// The receiver has taken every message of the session numbered below
/// `next`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    pub next: u64,
}

/// A request as read from a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Batch(Batch),
    /// The stream held no valid batch; nothing of it was taken.
    Refused(WireError),
}

/// Why a batch is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("more than {max} bytes in one frame")]
    TooLarge { max: usize },
    #[error("malformed frame: {0}")]
    Malformed(#[from] postcard::Error),
    #[error("{0} bytes left over after the frame")]
    Trailing(usize),
    #[error("{0} messages in one batch, more than {MAX_BATCH_MESSAGES}")]
    TooManyMessages(usize),
    #[error("a message of {0} bytes, more than {MAX_MESSAGE}")]
    MessageTooLarge(usize),
    #[error("{len} messages numbered from {first}, past the last sequence number")]
    PastLastNumber { first: u64, len: usize },
}

impl Batch {
    /// Checks the bounds that the encoding alone does not.
    fn check(self) -> Result<Batch, WireError> {
        if self.messages.len() > MAX_BATCH_MESSAGES {
            return Err(WireError::TooManyMessages(self.messages.len()));
        }
        if let Some(m) = self.messages.iter().find(|m| m.len() > MAX_MESSAGE) {
            return Err(WireError::MessageTooLarge(m.len()));
        }
        // No sender counts that far; the receiver adds the count to `first`.
        if self.first.checked_add(self.messages.len() as u64).is_none() {
            return Err(WireError::PastLastNumber {
                first: self.first,
                len: self.messages.len(),
            });
        }
        Ok(self)
    }

    /// Decodes a batch from a whole frame.
    pub fn decode(bytes: &[u8]) -> Result<Batch, WireError> {
        decode::<Batch>(bytes, MAX_BATCH_BYTES)?.check()
    }
}

fn decode<T: DeserializeOwned>(bytes: &[u8], max: usize) -> Result<T, WireError> {
    if bytes.len() > max {
        return Err(WireError::TooLarge { max });
    }
    let (value, rest) = postcard::take_from_bytes::<T>(bytes)?;
    if !rest.is_empty() {
        return Err(WireError::Trailing(rest.len()));
    }
    Ok(value)
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_stdvec(value).expect("frames serialise to memory")
}

/// What [`read_frame`] reads at once.
const PIECE: usize = 8 * 1024;

/// Reads the rest of the stream, but never more than `max` bytes: a
/// longer stream is cut off there and refused. Read a piece at a time,
/// so that the memory held is what came: `read_to_end` zero-fills the
/// whole spare capacity of its doubling buffer, and a stranger's stream
/// just past half the bound, held open, cost twice the bound.
async fn read_frame<T: AsyncRead + Unpin + Send>(
    io: &mut T,
    max: usize,
) -> io::Result<Result<Vec<u8>, WireError>> {
    let mut limited = io.take(max as u64 + 1);
    let mut bytes = Vec::new();
    let mut piece = [0u8; PIECE];
    loop {
        match limited.read(&mut piece).await {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&piece[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if bytes.len() > max {
        return Ok(Err(WireError::TooLarge { max }));
    }
    Ok(Ok(bytes))
}

async fn write_frame<T: AsyncWrite + Unpin + Send>(io: &mut T, bytes: &[u8]) -> io::Result<()> {
    io.write_all(bytes).await?;
    io.close().await
}

fn invalid(error: WireError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

/// The request-response codec of [`PROTOCOL`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LogCodec;

#[async_trait]
impl Codec for LogCodec {
    type Protocol = StreamProtocol;
    type Request = Request;
    type Response = Ack;

    async fn read_request<T>(&mut self, _: &StreamProtocol, io: &mut T) -> io::Result<Request>
    where
        T: AsyncRead + Unpin + Send,
    {
        let read = read_frame(io, MAX_BATCH_BYTES).await?;
        match read.and_then(|bytes| Batch::decode(&bytes)) {
            Ok(batch) => Ok(Request::Batch(batch)),
            Err(WireError::Malformed(postcard::Error::DeserializeUnexpectedEnd)) => Err(
                io::Error::new(io::ErrorKind::UnexpectedEof, "the request ended early"),
            ),
            Err(why) => Ok(Request::Refused(why)),
        }
    }

    async fn read_response<T>(&mut self, _: &StreamProtocol, io: &mut T) -> io::Result<Ack>
    where
        T: AsyncRead + Unpin + Send,
    {
        read_frame(io, MAX_ACK_BYTES)
            .await?
            .and_then(|bytes| decode(&bytes, MAX_ACK_BYTES))
            .map_err(invalid)
    }

    async fn write_request<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        request: Request,
    ) -> io::Result<()>
    where
        T: AsyncWrite + Unpin + Send,
    {
        match request {
            Request::Batch(batch) => write_frame(io, &encode(&batch)).await,
            Request::Refused(_) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a refused request is never sent",
            )),
        }
    }

    async fn write_response<T>(
        &mut self,
        _: &StreamProtocol,
        io: &mut T,
        ack: Ack,
    ) -> io::Result<()>
    where
        T: AsyncWrite + Unpin + Send,
    {
        write_frame(io, &encode(&ack)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn batch(messages: Vec<Vec<u8>>) -> Batch {
        Batch {
            session: 7,
            first: 3,
            messages: messages.into_iter().map(ByteBuf::from).collect(),
        }
    }

    #[test]
    fn batch_round_trips() {
        let b = batch(vec![vec![1, 2, 3], vec![], vec![9; 1000]]);
        assert_eq!(Batch::decode(&encode(&b)), Ok(b));
    }

    /// A request cut short (its stream reset as its sender went) fails
    /// the read; one that is whole but wrong is refused (its sender shut
    /// out).
    #[test]
    fn a_request_cut_short_fails_and_a_malformed_one_is_refused() {
        let read = |bytes: Vec<u8>| {
            let mut io = futures::io::Cursor::new(bytes);
            futures::executor::block_on(LogCodec.read_request(&PROTOCOL, &mut io))
        };
        let whole = encode(&batch(vec![vec![1, 2, 3], vec![9; 100]]));
        assert!(matches!(read(whole.clone()), Ok(Request::Batch(_))));
        for cut in [0, 1, whole.len() / 2, whole.len() - 1] {
            let failed = read(whole[..cut].to_vec()).map(drop).unwrap_err();
            assert_eq!(failed.kind(), io::ErrorKind::UnexpectedEof, "cut at {cut}");
        }
        let mut trailing = whole;
        trailing.push(0);
        assert!(matches!(read(trailing), Ok(Request::Refused(_))));
        assert!(matches!(read(vec![0xff; 20]), Ok(Request::Refused(_))));
    }

    #[test]
    fn batch_with_trailing_bytes_is_refused() {
        let mut bytes = encode(&batch(vec![vec![1]]));
        bytes.push(0);
        assert_eq!(Batch::decode(&bytes), Err(WireError::Trailing(1)));
    }

    #[test]
    fn batch_bounds_are_enforced() {
        let many = batch(vec![vec![]; MAX_BATCH_MESSAGES + 1]);
        assert_eq!(
            Batch::decode(&encode(&many)),
            Err(WireError::TooManyMessages(MAX_BATCH_MESSAGES + 1))
        );
        let big = batch(vec![vec![0; MAX_MESSAGE + 1]]);
        assert_eq!(
            Batch::decode(&encode(&big)),
            Err(WireError::MessageTooLarge(MAX_MESSAGE + 1))
        );
        let last = Batch {
            first: u64::MAX,
            ..batch(vec![vec![1]])
        };
        assert_eq!(
            Batch::decode(&encode(&last)),
            Err(WireError::PastLastNumber {
                first: u64::MAX,
                len: 1
            })
        );
        let huge = vec![0u8; MAX_BATCH_BYTES + 1];
        assert_eq!(
            Batch::decode(&huge),
            Err(WireError::TooLarge {
                max: MAX_BATCH_BYTES
            })
        );
    }

    #[test]
    fn oversized_stream_is_cut_off_at_the_bound() {
        let stream = vec![0u8; 10 * MAX_BATCH_BYTES];
        let mut reader = futures::io::Cursor::new(stream);
        let read = futures::executor::block_on(read_frame(&mut reader, MAX_BATCH_BYTES));
        assert_eq!(
            read.unwrap(),
            Err(WireError::TooLarge {
                max: MAX_BATCH_BYTES
            })
        );
        assert_eq!(reader.position(), MAX_BATCH_BYTES as u64 + 1);
    }

    proptest! {
        #[test]
        fn batch_decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = Batch::decode(&bytes);
        }
    }
}
