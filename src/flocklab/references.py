"""The sources Flocklab's models and claims come from, cited once each.

Models, claims, captions and the docs cite these by name (author, title, venue, year), so a
citation is written in one place. The technical articles that describe the bench dragon's
agent model, the teaching tool, the tongue model and the integrator comparison are
unsigned web articles without a date; they are cited by title and kind.
"""

from __future__ import annotations

VICSEK_1995 = ("T. Vicsek, A. Czirók, E. Ben-Jacob, I. Cohen and O. Shochet, \"Novel type of "
               "phase transition in a system of self-driven particles\", Phys. Rev. Lett. 75, "
               "1226 (1995)")
GREGOIRE_CHATE_2004 = ("G. Grégoire and H. Chaté, \"Onset of collective and cohesive motion\", "
                       "Phys. Rev. Lett. 92, 025702 (2004)")
COUZIN_2002 = ("I. D. Couzin, J. Krause, R. James, G. D. Ruxton and N. R. Franks, \"Collective "
               "memory and spatial sorting in animal groups\", J. Theor. Biol. 218, 1 (2002)")
COUZIN_2005 = ("I. D. Couzin, J. Krause, N. R. Franks and S. A. Levin, \"Effective leadership "
               "and decision-making in animal groups on the move\", Nature 433, 513 (2005)")
REYNOLDS_1987 = ("C. W. Reynolds, \"Flocks, herds and schools: a distributed behavioral "
                 "model\", Computer Graphics (SIGGRAPH '87) 21(4), 25 (1987)")
BARAFF_WITKIN_1998 = ("D. Baraff and A. Witkin, \"Large steps in cloth simulation\", "
                      "Proc. SIGGRAPH '98, 43 (1998)")
CUMCM_2024_A = ("China Undergraduate Mathematical Contest in Modeling (CUMCM) 2024, problem A, "
                "\"板凳龙\" 闹元宵 (the bench dragon)")
BENCH_DRAGON_ARTICLE = ("\"基于数值模拟的‘板凳龙’运动机理模型研究\" (a numerical study of the "
                        "bench "
                        "dragon's motion), unsigned technical article, undated")
VICSEK_TEACHING_TOOL = ("\"用Matlab实现的经典Vicsek多智能体协同行为仿真\" (a Vicsek teaching tool "
                        "in Matlab), unsigned technical article, undated")
TONGUE_ARTICLE = ("\"质点-弹簧模型\" tongue model in C++ (a two-dimensional mass–spring tongue), "
                  "unsigned technical article, undated")
INTEGRATOR_ARTICLE = ("\"弹簧质点系统仿真：显式与隐式积分器的稳定性对比与代码实现\" (explicit and "
                      "implicit integrators for mass–spring systems), unsigned technical "
                      "article, undated")
COLLECTIVE_MOTION_PAPERS = ("\"动物集群运动行为模型\" (animal collective-motion models): "
                            "student papers of a Chinese mathematical-modelling contest on "
                            "fish schools with a shark, obstacles and informed leaders, "
                            "published as a series without authors or date")
BALLERINI_2008 = ("M. Ballerini, N. Cabibbo, R. Candelier, A. Cavagna, E. Cisbani, I. Giardina, "
                  "V. Lecomte, A. Orlandi, G. Parisi, A. Procaccini, M. Viale and V. Zdravkovic, "
                  "\"Interaction ruling animal collective behavior depends on topological "
                  "rather than metric distance: evidence from a field study\", Proc. Natl. "
                  "Acad. Sci. USA 105, 1232 (2008)")
GINELLI_CHATE_2010 = ("F. Ginelli and H. Chaté, \"Relevance of metric-free interactions in "
                      "flocking phenomena\", Phys. Rev. Lett. 105, 168103 (2010)")
CHATE_2008 = ("H. Chaté, F. Ginelli, G. Grégoire and F. Raynaud, \"Collective motion of "
              "self-propelled particles interacting without cohesion\", Phys. Rev. E 77, "
              "046113 (2008)")
NAGY_DARUKA_VICSEK_2007 = ("M. Nagy, I. Daruka and T. Vicsek, \"New aspects of the continuous "
                           "phase transition in the scalar noise model (SNM) of collective "
                           "motion\", Physica A 373, 445 (2007)")
ALDANA_2007 = ("M. Aldana, V. Dossetti, C. Huepe, V. M. Kenkre and H. Larralde, \"Phase "
               "transitions in systems of self-propelled agents and related network models\", "
               "Phys. Rev. Lett. 98, 095702 (2007)")
BAGLIETTO_ALBANO_2008 = ("G. Baglietto and E. V. Albano, \"Finite-size scaling analysis and "
                         "dynamic study of the critical behavior of a model for the collective "
                         "displacement of self-driven individuals\", Phys. Rev. E 78, 021125 "
                         "(2008)")
BAGLIETTO_ALBANO_2009 = ("G. Baglietto and E. V. Albano, \"Nature of the order-disorder "
                         "transition in the Vicsek model for the collective motion of "
                         "self-propelled particles\", Phys. Rev. E 80, 050103(R) (2009)")
BAGLIETTO_ALBANO_CANDIA_2012 = ("G. Baglietto, E. V. Albano and J. Candia, \"Criticality and "
                                "the onset of ordering in the standard Vicsek model\", "
                                "Interface Focus 2, 708 (2012)")
FISHER_BARBER_1972 = ("M. E. Fisher and M. N. Barber, \"Scaling theory for finite-size effects "
                      "in the critical region\", Phys. Rev. Lett. 28, 1516 (1972)")
EFRON_TIBSHIRANI_1993 = ("B. Efron and R. J. Tibshirani, An Introduction to the Bootstrap, "
                         "Chapman & Hall (1993)")
SOKAL_1997 = ("A. D. Sokal, \"Monte Carlo methods in statistical mechanics: foundations and "
              "new algorithms\", in Functional Integration, Springer (1997)")
GEWEKE_1992 = ("J. Geweke, \"Evaluating the accuracy of sampling-based approaches to the "
               "calculation of posterior moments\", in Bayesian Statistics 4, Oxford "
               "University Press (1992)")
DORSOGNA_2006 = ("M. R. D'Orsogna, Y. L. Chuang, A. L. Bertozzi and L. S. Chayes, "
                 "\"Self-propelled particles with soft-core interactions: patterns, stability, "
                 "and collapse\", Phys. Rev. Lett. 96, 104302 (2006)")
GAZI_PASSINO_2003 = ("V. Gazi and K. M. Passino, \"Stability analysis of swarms\", IEEE Trans. "
                     "Autom. Control 48, 692 (2003)")
HAIRER_LUBICH_WANNER_2006 = ("E. Hairer, C. Lubich and G. Wanner, Geometric Numerical "
                             "Integration, 2nd ed., Springer (2006), ch. II.5 (composition, "
                             "Strang splitting)")
LI_SHAO_QIAN_2002 = ("X. L. Li, Z. J. Shao and J. X. Qian, \"An optimizing method based on "
                     "autonomous animats: fish-swarm algorithm\", Systems Engineering — Theory "
                     "& Practice 22(11), 32 (2002)")
PITCHER_1982 = ("T. J. Pitcher, A. E. Magurran and I. J. Winfield, \"Fish in larger shoals "
                "find food faster\", Behav. Ecol. Sociobiol. 10, 149 (1982)")
CLARK_MANGEL_1986 = ("C. W. Clark and M. Mangel, \"The evolutionary advantages of group "
                     "foraging\", Theor. Popul. Biol. 30, 45 (1986)")

# Finite-size scaling and the exactly solved models it is validated on.
BINDER_1981 = ("K. Binder, \"Finite size scaling analysis of Ising model block distribution "
               "functions\", Z. Phys. B 43, 119 (1981)")
FERRENBERG_LANDAU_1991 = ("A. M. Ferrenberg and D. P. Landau, \"Critical behavior of the "
                          "three-dimensional Ising model: a high-resolution Monte Carlo "
                          "study\", Phys. Rev. B 44, 5081 (1991)")
NEWMAN_BARKEMA_1999 = ("M. E. J. Newman and G. T. Barkema, Monte Carlo Methods in Statistical "
                       "Physics, Oxford University Press (1999)")
HOUDAYER_HARTMANN_2004 = ("J. Houdayer and A. K. Hartmann, \"Low-temperature behavior of "
                          "two-dimensional Gaussian Ising spin glasses\", Phys. Rev. B 70, "
                          "014418 (2004)")
BHATTACHARJEE_SENO_2001 = ("S. M. Bhattacharjee and F. Seno, \"A measure of data collapse for "
                           "scaling\", J. Phys. A 34, 6375 (2001)")
WOLFF_1989 = ("U. Wolff, \"Collective Monte Carlo updating for spin systems\", Phys. Rev. "
              "Lett. 62, 361 (1989)")
ONSAGER_1944 = ("L. Onsager, \"Crystal statistics. I. A two-dimensional model with an "
                "order-disorder transition\", Phys. Rev. 65, 117 (1944)")
BAXTER_1982 = ("R. J. Baxter, Exactly Solved Models in Statistical Mechanics, Academic Press "
               "(1982)")
