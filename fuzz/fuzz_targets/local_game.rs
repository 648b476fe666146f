//! Feeds arbitrary bytes to what reads the game on this device back from
//! the data folder (`app::local::read`), as a damaged file or one of
//! another version may hold them: it says why it does not read or play, or
//! plays it again. No panic may leave it, and what plays again is a game
//! whose record plays again to the same game.

#![no_main]

use clovece::app::local;
use clovece::app::offline::OfflineGame;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(game) = local::read(data) {
        let record = game.record().expect("a game played again keeps its record");
        let again = OfflineGame::replay(record.clone()).expect("its record plays again");
        assert_eq!(again.record(), Some(record));
        assert_eq!(again.pieces(), game.pieces());
    }
});
