"""Training: stage 1 SFT, the GRPO engine, stage 2 action-level GRPO, configs and the run loop (torch)."""
