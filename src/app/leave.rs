//! Leaving a game before its end, which the player confirms after being
//! told what it costs.

/// What leaving a game costs, as the confirmation says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaveCost {
    /// A game on this device, or against the computer alone, just ends;
    /// nobody's statistics change.
    Nothing,
    /// An online game with another player left counts as two losses, so
    /// that leaving a game one is losing is worse than losing it (the
    /// other phones play on without this player).
    TwoLosses,
    /// Every other player has left on purpose: the game counts as this
    /// player's win, left or played on ([`crate::stats::record::wins_by_forfeit`]).
    Won,
}

impl LeaveCost {
    /// The cost of leaving a game that counts in the statistics or not
    /// ([`crate::stats::record::counts`]), won by forfeit or not.
    pub fn of(counted: bool, forfeit: bool) -> LeaveCost {
        match (counted, forfeit) {
            (false, _) => LeaveCost::Nothing,
            (true, false) => LeaveCost::TwoLosses,
            (true, true) => LeaveCost::Won,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaving_a_game_the_statistics_count_costs_two_losses() {
        assert_eq!(LeaveCost::of(true, false), LeaveCost::TwoLosses);
    }

    #[test]
    fn leaving_a_game_they_do_not_count_costs_nothing() {
        assert_eq!(LeaveCost::of(false, false), LeaveCost::Nothing);
        assert_eq!(LeaveCost::of(false, true), LeaveCost::Nothing);
    }

    #[test]
    fn the_last_player_in_a_game_everyone_else_left_wins_it() {
        assert_eq!(LeaveCost::of(true, true), LeaveCost::Won);
    }
}
