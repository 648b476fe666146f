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
}

impl LeaveCost {
    /// The cost of leaving a game that counts in the statistics or not
    /// ([`crate::stats::record::counts`]).
    pub fn of(counted: bool) -> LeaveCost {
        if counted {
            LeaveCost::TwoLosses
        } else {
            LeaveCost::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaving_a_game_the_statistics_count_costs_two_losses() {
        assert_eq!(LeaveCost::of(true), LeaveCost::TwoLosses);
    }

    #[test]
    fn leaving_a_game_they_do_not_count_costs_nothing() {
        assert_eq!(LeaveCost::of(false), LeaveCost::Nothing);
    }
}
