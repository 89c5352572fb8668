"""talus.agents: learning agents trained on talus.envs (issue 17), with Debian's python3-torch on
the CPU.

    from talus.agents import dqn
    result = dqn.train(dqn.DqnConfig(total_env_steps=200_000), out_dir="out/dqn")
    policy = dqn.load_policy("out/dqn/checkpoint.pt")

    from talus.agents import ddpg_her          # DDPG + HER on ShapingStrokes-v0
    result = ddpg_her.train(ddpg_her.DdpgHerConfig(total_episodes=2_000), out_dir="out/ddpg")

torch is imported by the agent modules, not here, so `import talus` works without it.
Every agent's train() and load_policy() keep freed memory in the process for reuse
(allocator.keep_freed_memory: torch's large temporaries page-faulted in again at every call,
10x the training's time on this project's machines).
examples/train_dqn_trench.py and examples/train_ddpg_her.py are the command-line forms;
docs/envs.md shows the trained results.
"""
