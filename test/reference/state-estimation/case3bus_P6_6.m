function mpc = case3bus_P6_6
%CASE3BUS_P6_6  MATPOWER Extras' se/case3bus_P6_6.m (Problem 6.6 of Mariesa Crow's 'Computational Methods for
%   Electric Power Systems', by Rui Bo, 2007/11/12), rewritten in case format version 2 with the same numbers:
%   gridops reads version 2 only (shared/reference/state-estimation/case3bus_P6_6.m is version 1).

%% MATPOWER Case Format : Version 2
mpc.version = '2';

%% system MVA base
mpc.baseMVA = 1000;

%% bus data
%	bus_i	type	Pd	Qd	Gs	Bs	area	Vm	Va	baseKV	zone	Vmax	Vmin
mpc.bus = [
	1	3	350	100	0	0	1	1	0	230	1	1.00	1.00;
	2	2	400	250	0	0	1	1	0	230	1	1.02	1.02;
	3	2	250	100	0	0	1	1	0	230	1	1.02	1.02;
];

%% generator data
%	bus	Pg	Qg	Qmax	Qmin	Vg	mBase	status	Pmax	Pmin
mpc.gen = [
	1	182.18	0	999	-999	1.00	100	1	600	0;
	2	272.77	0	999	-999	1.02	100	1	400	0;
	3	545.05	0	999	-999	1.02	100	1	100	0;
];

%% branch data
%	fbus	tbus	r	x	b	rateA	rateB	rateC	ratio	angle	status	angmin	angmax
mpc.branch = [
	1	2	0.01	0.1	0.050	999	100	100	0	0	1	-360	360;
	1	3	0.05	0.1	0.025	999	100	100	0	0	1	-360	360;
	2	3	0.05	0.1	0.025	999	100	100	0	0	1	-360	360;
];

%% generator cost data
%	2	startup	shutdown	n	c(n-1)	...	c0
mpc.gencost = [
	2	0	0	3	1.5	1	0;
	2	0	0	3	1	2	0;
	2	0	0	3	0.5	2.5	0;
];
