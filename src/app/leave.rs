//! Leaving a game before its end, which the player confirms after being
//! told what it costs.

/// What leaving a game costs, as the confirmation says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaveCost {
    /// A game on this device just ends; nobody's statistics change.
    Nothing,
    /// An online game left counts as two losses, so that leaving a game
    /// one is losing is worse than losing it (the other phones play on
    /// without this player).
    TwoLosses,
}

impl LeaveCost {
    /// The cost of leaving a game that is online or on this device.
    pub fn of(online: bool) -> LeaveCost {
        if online {
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
    fn leaving_an_online_game_counts_as_two_losses() {
        assert_eq!(LeaveCost::of(true), LeaveCost::TwoLosses);
    }

    #[test]
    fn leaving_a_game_on_this_device_costs_nothing() {
        assert_eq!(LeaveCost::of(false), LeaveCost::Nothing);
    }
}
