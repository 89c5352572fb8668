"""talus.agents: learning agents trained on talus.envs (issue 17), with Debian's python3-torch on
the CPU.

    from talus.agents import dqn
    result = dqn.train(dqn.DqnConfig(total_env_steps=200_000), out_dir="out/dqn")
    policy = dqn.load_policy("out/dqn/checkpoint.pt")

torch is imported by the agent modules, not here, so `import talus` works without it.
examples/train_dqn_trench.py is the command-line form; docs/envs.md shows the trained results.
"""
